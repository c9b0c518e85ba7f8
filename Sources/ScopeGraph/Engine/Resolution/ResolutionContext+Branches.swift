import Synchronization

/// Branches: what an async factory resolves from a child task (`async let`, a task group, or
/// a task it started) while it runs belongs to the factory's resolve, as the contract says of
/// its `Resolver`'s requests "across suspension points and threads".
///
/// A resolve's context is confined to its task, so a request from another task cannot join
/// it directly. It runs in a *branch*: a context of its own that joins the resolve's group
/// (so each reads what the other built before it is published, and both publish together,
/// when the resolve ends) and inherits the path of the factory that spawned it (so a
/// constructor cycle through the child task is reported with its path instead of waiting on
/// itself forever). Without it, a child task's request was a resolve of its own: it waited for
/// the publication of what the factory's resolve was building, which comes only once that
/// factory returns, and the factory awaited the child: a deadlock.
///
/// `graph` instances are shared within a branch, not between a branch and the resolve it
/// belongs to (each context's table is confined to its task).
extension ResolutionContext {
    /// Where an async factory runs in its resolve, for requests made from other tasks while it
    /// runs (`withContextAsync`). Bound as a task-local around the factory (`constructAsync`),
    /// so the tasks it starts inherit it.
    final class BranchPoint: @unchecked Sendable {
        // @unchecked: the properties are immutable, except `isOpen`, which is only touched
        // with the coordinator's lock held.
        /// The resolve running the factory.
        let context: ResolutionContext
        /// The factory's frame in `context.stack`: the frames up to it stay while it runs.
        let frameIndex: Int
        /// The path to the factory, the first keys of every error in a branch.
        let pathKeys: [Key]
        /// The uncached registrations being built on that path (a branch asking for one again
        /// is in a cycle).
        let identities: [UInt64]
        /// The factory's registration and the depth of its requests, for observers: a branch's
        /// requests are that factory's (traces, the dependency graph, validation).
        let dependent: AnyEntry?
        let depth: Int
        /// Until the factory returns: a task it started that asks later is not a branch.
        var isOpen = true
        /// Set when a branch read or made an incomplete instance: the factory's instance may
        /// be built from it, so it is incomplete too (`runBranchingFactory`).
        let readIncomplete = Atomic<Bool>(false)
        /// The point of the factory this one's factory runs in, in the same resolve or the one
        /// it branched from: a task that asks once this factory has returned, while that one
        /// still runs, is a branch there.
        let outer: BranchPoint?

        init(context: ResolutionContext, outer: BranchPoint?) {
            self.context = context
            self.outer = outer
            frameIndex = context.stack.count - 1
            pathKeys = context.pathKeys
            identities = context.inheritedIdentities + context.stack.compactMap(\.identity)
            dependent = context.stack.last?.entry
            depth = context.inheritedDepth + context.stack.count
        }

        /// The points on the path to the factory: those `context` branched from, then this
        /// one. A closed one no longer marks a path (its frame may have been reused since).
        var ancestry: [BranchPoint] { context.branchAncestry + [self] }
    }

    /// The async factory running in the current task or one of its ancestors, bound by
    /// `constructAsync`.
    @TaskLocal static var branchPoint: BranchPoint?

    /// `branchPoint` for a request that does not run in its resolve's task (a child task's),
    /// read only when an async resolve may be running anywhere.
    static var branchPointElsewhere: BranchPoint? {
        guard AsyncActivity.mayBeActive, let point = branchPoint else { return nil }
        return point.context.isRunningInCurrentTask ? nil : point
    }

    /// Runs `factory` as `entry`'s async factory with this resolve's branch point bound (see
    /// `BranchPoint`), and closes the point when it returns or throws.
    func runBranchingFactory<T>(_ factory: () async throws -> T) async throws -> T {
        let point = BranchPoint(context: self, outer: Self.branchPoint)
        defer {
            BuildCoordinator.shared.close(point)
            // The factory's frame is still on the stack: its instance is incomplete.
            if point.readIncomplete.load(ordering: .acquiring) { noteIncompleteRead() }
        }
        return try await Self.$branchPoint.withValue(point) { try await factory() }
    }

    /// Runs `body` as a branch of the resolve at `point`, or else at the first of its outer
    /// points whose factory still runs (see `BranchPoint`): returns once `body` has; the
    /// branch then finishes with the resolve's group in a task of its own, publishing what it
    /// built when the resolve ends. `nil` (nothing run) when every factory has returned.
    static func runBranch<R>(of point: BranchPoint, _ body: (ResolutionContext) async throws -> R) async throws -> R? {
        var candidate: BranchPoint? = point
        while let current = candidate {
            if let result = try await runBranch(at: current, body) { return result }
            candidate = current.outer
        }
        return nil
    }

    /// `runBranch(of:)` at `point` alone.
    private static func runBranch<R>(at point: BranchPoint, _ body: (ResolutionContext) async throws -> R)
        async throws -> R?
    {
        // A point of this task's own resolve is not a branch point for it.
        guard !point.context.isRunningInCurrentTask else { return nil }
        let branch = ResolutionContext()
        branch.isAsync = true
        branch.inheritedPath = point.pathKeys
        branch.inheritedIdentities = point.identities
        branch.branchAncestry = point.ancestry
        branch.inheritedDependent = point.dependent
        branch.inheritedDepth = point.depth
        guard BuildCoordinator.shared.open(branch, at: point) else { return nil }
        branch.ownerTask.store(Self.currentTaskIdentity ?? 0, ordering: .releasing)
        AsyncActivity.enter()
        let outcome: Result<R, any Error>
        do {
            outcome = .success(try await $runningInTask.withValue(branch) { try await body(branch) })
        } catch {
            outcome = .failure(error)
        }
        branch.ownerTask.store(0, ordering: .releasing)
        branch.topLevelStart = nil
        if branch.sawIncomplete { point.readIncomplete.store(true, ordering: .releasing) }
        // Finished as a member of the group, whatever `body` did: what it built is the
        // resolve's, as a failed request's built dependencies are in one context (its error
        // reaches the factory, which decides whether the resolve fails).
        BuildCoordinator.shared.end(branch)
        startImmediateTask {
            _ = try? await BuildCoordinator.shared.finishAsync(branch)  // retires it (`retire`)
            branch.clearFinishedWork()
            AsyncActivity.leave()
        }
        return try outcome.get()
    }

    /// Whether `slot`, being built by `owner`, is being built on the path this branch
    /// descends from: asking for it here is a constructor cycle (waiting would wait for the
    /// factory that awaits this branch). Only open points count: once a factory returned, its
    /// frame index may be another frame's. Call with the coordinator's lock held.
    func isBuildingOnBranchPath(_ slot: AnySlot, by owner: ResolutionContext) -> Bool {
        guard slot.build.built == nil else { return false }
        return branchAncestry.contains {
            $0.isOpen && $0.context === owner && slot.buildFrameIndex <= $0.frameIndex
        }
    }
}
