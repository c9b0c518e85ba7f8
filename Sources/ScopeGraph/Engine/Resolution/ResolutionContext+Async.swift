import Synchronization

/// The async resolve: the same lookup, lifetime rules, construction path, cycle detection,
/// blocks and coordination as the synchronous one (they are shared), with the three places
/// where a resolve may suspend written once more with `await`: calling an async or main-actor
/// factory, waiting for a slot another resolve builds, and waiting for the group to finish.
extension ResolutionContext {
    /// The identity of the task running the caller, if any (see `ownerTask`).
    static var currentTaskIdentity: Int? { withUnsafeCurrentTask { $0?.hashValue } }

    /// True when this is an async resolve running in the calling task: a request made there
    /// (through a factory's `Resolver`) joins it.
    var isRunningInCurrentTask: Bool {
        let owner = ownerTask.load(ordering: .acquiring)
        return owner != 0 && owner == Self.currentTaskIdentity
    }

    /// The async resolve running in the current task, if any (bound by `runTopLevelAsync`; a
    /// child task inherits it, but `isRunningInCurrentTask` is false there). Read only while
    /// an async resolve may be running (`AsyncActivity`).
    @TaskLocal static var runningInTask: ResolutionContext?

    /// `runningInTask`, read only when an async resolve may be running anywhere.
    static var taskContext: ResolutionContext? { AsyncActivity.mayBeActive ? runningInTask : nil }

    /// Runs `body` in `joining` when it is the async resolve running in this task, else as a
    /// new top-level async resolve.
    static func withContextAsync<R>(
        joining context: ResolutionContext?, _ body: (ResolutionContext) async throws -> R
    ) async throws -> R {
        if let context, context.isRunningInCurrentTask { return try await body(context) }
        // A task an async factory started while it runs: a branch of that factory's resolve.
        if let point = branchPointElsewhere, let result = try await runBranch(of: point, body) { return result }
        return try await ResolutionContext().runTopLevelAsync(body)
    }

    /// Runs `body` as this context's top-level async resolve: its blocks run and its cached
    /// instances are published before it returns; on failure nothing it built is cached.
    func runTopLevelAsync<R>(_ body: (ResolutionContext) async throws -> R) async throws -> R {
        // A handed-off build was marked before other resolves could reach it (`handOff`), and
        // they read the flag under the coordinator's lock: written only while unreachable.
        if !isAsync { isAsync = true }
        ownerTask.store(Self.currentTaskIdentity ?? 0, ordering: .releasing)
        AsyncActivity.enter()
        defer {
            AsyncActivity.leave()
            ownerTask.store(0, ordering: .releasing)
            topLevelStart = nil
            clearFinishedWork()
        }
        let result: R
        do {
            result = try await Self.$runningInTask.withValue(self) { try await body(self) }
        } catch {
            noteBranches()
            failTopLevel(error)
            throw error
        }
        noteBranches()
        if !usedCoordinator {
            guard !pending.isEmpty else { return result }
            do {
                try bound { try runPendingBlocks() }
            } catch {
                failTopLevel(error)
                throw error
            }
            // Released unbound: an instance's deinit that resolves starts a resolve of its own.
            pending.removeAll()
            guard usedCoordinator else { return result }
        }
        try await BuildCoordinator.shared.finishAsync(self)
        return result
    }

    /// Takes part in coordination if a branch joined this resolve's group (they finish, or
    /// fail, with it). Call once the top-level request has returned or thrown: no branch joins
    /// later (its factory has returned, `BuildCoordinator.close`).
    private func noteBranches() {
        if !usedCoordinator, hasBranches.load(ordering: .acquiring) { usedCoordinator = true }
    }

    /// Runs synchronous work of this resolve (a factory, blocks) with this context bound to the
    /// current thread, so that a `container.resolve` made directly inside joins it. Nothing in
    /// `body` suspends, so the binding cannot outlive it on this thread.
    func bound<R>(_ body: () throws -> R) rethrows -> R {
        let thread = ThreadState.current
        let previous = thread.context
        thread.context = self
        defer { thread.context = previous }
        return try body()
    }

    // MARK: Requests

    func resolveAsync<T>(_ key: Key, as type: T.Type, from start: Container, arguments: Arguments?) async throws -> T {
        noteTopLevelStart(start)
        let scope = ScopeActivity.current
        if let entry = try lookup(key, from: start, scope: scope) {
            return try await produceAsync(entry, Request(key: key, start: start, arguments: arguments), as: T.self)
        }
        return try await resolveUnregisteredAsync(key, as: T.self, from: start, arguments: arguments, scope: scope)
    }

    /// `resolveAsync` when nothing is registered for `key` itself (see `resolveUnregistered`).
    /// A function of its own: an async function's frame holds all its locals, and the `T?`
    /// here would cost every call a metadata lookup.
    @inline(never)
    private func resolveUnregisteredAsync<T>(
        _ key: Key, as type: T.Type, from start: Container, arguments: Arguments?, scope: ResolutionScope?
    ) async throws -> T {
        if let optional = T.self as? any OptionalResolvable.Type {
            let wrappedKey = Key(optional.wrappedType, tag: key.tag, arguments: key.arguments)
            guard let entry = try lookup(wrappedKey, from: start, scope: scope) else {
                throw missingError(wrappedKey, from: start)
            }
            let value = try await entry.produceAnyAsync(
                Request(key: wrappedKey, start: start, arguments: arguments), in: self)
            guard let wrapped = optional.wrap(value) else { throw error(.typeMismatch, wrappedKey) }
            // Checked: `wrap` returns an `Optional<Wrapped>`, which is `T`.
            return wrapped as! T
        }
        let deferred = try deferredValue(key, as: T.self, from: start, scope: scope, ifRegistered: false)
        if let deferred { return deferred }
        throw missingError(key, from: start)
    }

    /// `produce`, for an async resolve (observers included).
    func produceAsync<T>(_ entry: AnyEntry, _ request: Request, as type: T.Type) async throws -> T {
        guard let observer = ScopeActivity.current?.observer else {
            return try await entry.produceAsync(request, as: T.self, in: self)
        }
        let dependent = stack.last?.entry ?? inheritedDependent
        let depth = inheritedDepth + stack.count
        let clock = ContinuousClock()
        let started = clock.now
        lastConstructed = nil
        let value = try await entry.produceAsync(request, as: T.self, in: self)
        observer.resolved(
            ResolutionEvent(
                key: request.key, entry: entry, dependent: dependent, start: request.start,
                isNew: lastConstructed == entry.serial && lastConstructedDepth == depth - inheritedDepth,
                duration: clock.now - started, depth: depth))
        return value
    }

    // MARK: Lifetimes (see the table in ResolutionContext+Instances.swift)

    func instanceAsync<T>(of entry: Entry<T>, for request: Request) async throws -> T {
        switch entry.lifetime {
        case .unique:
            return try await constructAsync(entry, request, identity: entry.serial)
        case .graph:
            if request.arguments != nil {
                return try await constructAsync(entry, request, identity: entry.serial)
            }
            if let position = sharedGraphPosition(of: entry, for: request) {
                return sharedGraphInstance(at: position, as: T.self)
            }
            let value = try await constructAsync(entry, request, identity: entry.serial)
            keepGraphInstance(value, of: entry, for: request)
            return value
        case .singleton, .weakSingleton, .eagerSingleton, .perContainer:
            return try await cachedInstanceAsync(entry, request)
        }
    }

    /// A cached lifetime's instance in an async resolve. A synchronous factory runs inline; an
    /// async or main-actor one is handed off to a build of its own (a task and a resolve of
    /// its own, which every requester then waits for): cancelling a requester ends only its
    /// wait, and the build goes on for the others.
    private func cachedInstanceAsync<T>(_ entry: Entry<T>, _ request: Request) async throws -> T {
        let (slot, root) = try cacheLocation(of: entry, for: request)
        if slot.box.load(ordering: .relaxed) != 0 {
            // No `T?`: an async function's frame holds all its locals, and one would cost every
            // call a metadata lookup.
            do { return try slot.published(orElse: { throw NothingPublished() }) } catch is NothingPublished {}
        }
        let coordinator = BuildCoordinator.shared
        // Checked: what a slot of `T` holds is a `T`.
        if let value = try await coordinator.acquireAsync(slot, for: self, key: request.key) { return value as! T }
        // A synchronous factory is built inline. (A value type under `weakSingleton` cannot be
        // kept: the handed-off build gives nothing, and this requester builds its own below.)
        if entry.kind != .sync {
            let builder = ResolutionContext()
            builder.isAsync = true
            builder.inheritedPath = pathKeys
            // It builds for this resolve: what this one may not wait for, it may not either.
            if !branchAncestry.isEmpty {
                builder.branchAncestry = branchAncestry
                builder.inheritedIdentities = inheritedIdentities + stack.compactMap(\.identity)
            }
            coordinator.handOff(slot, from: self, to: builder)
            // Its own task, started at once on this thread (see `startImmediateTask`). The task
            // holds the request's starting container (a request does not: `Request.start`),
            // since it may outlive this requester.
            let start = request.start
            startImmediateTask {
                await builder.runBuild(entry, in: slot, request, root: root)
                withExtendedLifetime(start) {}
            }
            if let value = try await coordinator.acquireAsync(slot, for: self, key: request.key, handedOffTo: builder) {
                return value as! T
            }
            // The build's instance was not kept (its registration was removed meanwhile):
            // this requester builds one itself.
        }
        let value: T
        do {
            value = try await constructAsync(entry, request, owner: root)
        } catch {
            coordinator.abandon(slot, by: self)
            throw error
        }
        try keepBuilt(value, of: entry, in: slot)
        return value
    }

    /// A handed-off build: this context's top-level resolve, which builds `slot`'s instance
    /// and publishes it (or leaves its error for the requesters that wait for it).
    func runBuild<T>(_ entry: Entry<T>, in slot: Slot<T>, _ request: Request, root: Container) async {
        _ = try? await runTopLevelAsync { context in
            let value = try await context.constructAsync(entry, request, owner: root)
            try context.keepBuilt(value, of: entry, in: slot)
        }
    }

    // MARK: The construction path, awaiting the factory

    /// `construct`, awaiting an async factory or hopping to the main actor for a main-actor
    /// one; a synchronous factory runs inline, bound to the thread.
    func constructAsync<T>(_ entry: Entry<T>, _ request: Request, owner: Container? = nil, identity: UInt64? = nil)
        async throws -> T
    {
        let requested: Key? = request.key == entry.key ? nil : request.key
        try enterConstruction(entry, key: requested, identity: identity)
        let value: T
        let resolver = Resolver(container: owner ?? request.start, context: self)
        do {
            let arguments = request.arguments
            if let factory = entry.asyncFactory {
                value = try await runBranchingFactory { try await factory.body(resolver, arguments) }
            } else if let factory = entry.mainActorFactory {
                value = try await MainActor.run {
                    try self.bound { Carried(try factory.body(resolver, arguments)) }
                }.value
            } else {
                value = try bound { try entry.make(resolver, arguments) }
            }
        } catch {
            throw failConstruction(request.key, error)
        }
        leaveConstruction(entry, key: request.key, root: resolver.container, value: value)
        return value
    }
}

/// Counts running async resolves, so that a synchronous resolve reads the task-local
/// (`ResolutionContext.runningInTask`) only when one may be running.
enum AsyncActivity {
    private static let active = Atomic<Int>(0)
    static func enter() { active.add(1, ordering: .relaxed) }
    static func leave() { active.subtract(1, ordering: .relaxed) }
    static var mayBeActive: Bool { active.load(ordering: .relaxed) != 0 }
}

/// Thrown by `cachedInstanceAsync`'s read when the instance it saw published is gone by then.
private struct NothingPublished: Error {}
