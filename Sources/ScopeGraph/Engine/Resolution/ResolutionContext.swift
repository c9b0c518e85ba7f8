/// The state of one top-level resolve: the frames being built, the `graph` instances, the new
/// instances whose `onResolved` blocks are pending, and the cache slots it is building.
///
/// The context is explicit: the `Resolver` a factory receives carries it, so a dependency
/// resolved through it joins this resolve. A thread-local (`ThreadState.context`) also points
/// to it while it runs, for the one case the contract needs: a `container.resolve` called
/// directly inside a synchronous factory joins the resolve on that thread. The override scope
/// is not part of the context: each request reads the scope its task sees (so a scope entered
/// inside a factory applies to what that factory resolves).
///
/// Cross-thread coordination (slot ownership, waiting, groups) goes through `BuildCoordinator`.
final class ResolutionContext: @unchecked Sendable {
    // @unchecked: the fields in the first group are touched only by the thread running the
    // resolve (or, while it waits for its group, by the thread running the group's blocks, the
    // coordinator's lock ordering the hand-over); those in the second group only with
    // `BuildCoordinator.shared`'s lock held.

    // Owned by the resolving thread.
    var stack: [Frame] = []
    /// The `graph` instances this resolve holds, by registration and starting container.
    var graph = SmallMap<GraphKey, Any>()
    var pending: [PendingBlocks] = []
    /// Set once this context has taken part in cross-thread coordination: other threads may
    /// then reference it, so it is not reused.
    var usedCoordinator = false
    /// The registration whose factory returned last, and at which depth, for observers.
    var lastConstructed: UInt64?
    var lastConstructedDepth = -1
    /// While a block runs: the chain of instances whose blocks led to it, itself last (see
    /// `enterConstruction`).
    var blockLineage: [LineageLink] = []
    /// While a block runs: the keys that were being built when its instance's factory
    /// returned, which errors put before the stack's.
    var blockPath: [Key] = []
    /// While a block runs: the depth of its frame, so that the stack is this deep exactly for
    /// the block's own requests; -1 otherwise.
    var blockFrameDepth = -1
    /// Where the top-level request started, for suggestions in errors.
    var topLevelStart: Container?

    // Guarded by the coordinator's lock.
    var group: ResolutionGroup!
    var waitingOn: ResolutionContext?
    var waitingSlot: AnySlot?
    var waitPath: [Key] = []
    var isDone = false
    var ownedSlots: [AnySlot] = []
    /// How many contexts wait for a slot this one builds.
    var waiters = 0

    /// One construction or block in progress.
    struct Frame {
        /// The key as requested, when it differs from the entry's own (a forwarded type).
        let requestedKey: Key?
        let entry: AnyEntry
        var key: Key { requestedKey ?? entry.key }
        /// The registration's serial, for uncached constructions (cycles are detected on
        /// them); cached ones are detected by slot, blocks are not detected.
        let identity: UInt64?
    }

    /// What a `graph` instance is shared by within one top-level resolve: its registration and
    /// the container the requests for it start from. An owner-rooted factory asks from the
    /// owner, so it never gets an instance built from a child's view.
    struct GraphKey: Hashable {
        let entry: UInt64
        let start: UInt64
    }

    /// The current thread's resolve, if one is running.
    static var current: ResolutionContext? { ThreadState.current.context }

    /// Runs `body` in the resolve in progress on this thread, or as a new top-level resolve:
    /// pending `onResolved` blocks run and cached instances are published before it returns;
    /// on failure nothing it built is cached.
    static func withContext<R>(_ body: (ResolutionContext) throws -> R) throws -> R {
        let thread = ThreadState.current
        if let context = thread.context { return try body(context) }
        let context = thread.spare ?? ResolutionContext()
        thread.spare = nil
        thread.context = context
        defer { context.unbind(from: thread) }
        let result: R
        do {
            result = try body(context)
        } catch {
            context.failTopLevel(error)
            throw error
        }
        try context.endTopLevel()
        return result
    }

    /// Ends a successful top-level resolve: runs the pending `onResolved` blocks and
    /// publishes what it built (with the resolves it shares a cycle with, if any).
    private func endTopLevel() throws {
        if !usedCoordinator {
            guard !pending.isEmpty else { return }
            do {
                try runPendingBlocks()
            } catch {
                failTopLevel(error)
                throw error
            }
            // Blocks that built cached instances took part in coordination after all.
            guard usedCoordinator else { return }
        }
        try BuildCoordinator.shared.finish(self)
    }

    /// Ends a failed top-level resolve: releases what it was building.
    private func failTopLevel(_ error: any Error) {
        guard usedCoordinator else { return }
        BuildCoordinator.shared.fail(self, with: error)
    }

    /// Unbinds the finished context from `thread`; keeps it for the thread's next top-level
    /// resolve when no other thread can reach it.
    private func unbind(from thread: ThreadState) {
        thread.context = nil
        guard !usedCoordinator else { return }
        stack.removeAll(keepingCapacity: true)
        if !graph.isEmpty { graph.removeAll() }
        if !pending.isEmpty { pending.removeAll() }
        lastConstructed = nil
        topLevelStart = nil
        thread.spare = self
    }

    /// Records where a top-level request started.
    func noteTopLevelStart(_ start: Container) {
        if topLevelStart == nil { topLevelStart = start }
    }

    /// The path of the key being built, from the top-level request down: the stack's keys,
    /// after the path of the instance whose block is running, if one is.
    var pathKeys: [Key] { blockPath.isEmpty ? stack.map(\.key) : blockPath + stack.map(\.key) }
}

/// A group of resolves that share a cycle across threads: they read each other's built but
/// unpublished instances, publish together, and fail together. Only touched with the
/// coordinator's lock held.
final class ResolutionGroup {
    var members: [ResolutionContext]
    var error: (any Error)?
    var published = false
    /// How many members' threads are running blocks of this group.
    var runningBlocks = 0
    init(_ member: ResolutionContext) { members = [member] }
}
