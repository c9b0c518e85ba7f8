/// The requests a resolve serves: a key from a container, the same with `nil` for nothing
/// registered, and every registration of a type.
extension ResolutionContext {
    /// Records where a top-level request started.
    func noteTopLevelStart(_ start: Container) {
        if topLevelStart == nil { topLevelStart = .passUnretained(start) }
    }

    /// Runs `body` in the resolve in progress on this thread, or as a new top-level resolve:
    /// pending `onResolved` blocks run and cached instances are published before it returns;
    /// on failure nothing it built is cached.
    static func withContext<R>(_ body: (ResolutionContext) throws -> R) throws -> R {
        // Unretained: the thread-local holds the thread's state until the thread exits.
        // Measured: with a retained state (`ThreadState.current`) A took 2,114 instructions
        // instead of 2,059.
        try ThreadState.currentUnmanaged._withUnsafeGuaranteedRef { thread in
            thread.assertBoundContextAlive()
            // Unretained: the context's binder holds it until it unbinds it (`ThreadState`).
            if let bound = thread.boundContext { return try bound._withUnsafeGuaranteedRef(body) }
            // A request inside the factory of a top-level fast-path construction: it joins the
            // resolve made for that construction now (`ThreadState.materializePendingTop`).
            if thread.pendingEntry != nil { return try body(thread.materializePendingTop()) }
            // A `container.resolve` made directly inside an async factory joins its resolve.
            if let context = taskContext, context.isRunningInCurrentTask {
                return try context.bound { try body(context) }
            }
            let context = takeSpare(of: thread) ?? ResolutionContext()
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
    }

    /// Ends a successful top-level resolve: runs the pending `onResolved` blocks and
    /// publishes what it built (with the resolves it shares a cycle with, if any).
    func endTopLevel() throws {
        if !usedCoordinator {
            guard !pending.isEmpty else { return }
            do {
                try runPendingBlocks()
            } catch {
                failTopLevel(error)
                throw error
            }
            // The blocks that ran stay in `pending` until the resolve is unbound
            // (`clearFinishedWork`): their instances may go with them, and a deinit that
            // resolves must start a resolve of its own, not join this finished one.
            // Blocks that built cached instances took part in coordination after all.
            guard usedCoordinator else { return }
            unbindForFinish()
            // They ran: not the group's to run again.
            pending.removeAll()
        } else {
            unbindForFinish()
        }
        try BuildCoordinator.shared.finish(self)
    }

    /// Unbinds this context before its finish: publishing releases what the cache replaced,
    /// and a deinit that resolves must start a resolve of its own, not join this finishing one
    /// (its blocks run bound to their own context, `BuildCoordinator.runBlocks`).
    private func unbindForFinish() {
        let thread = ThreadState.current
        if thread.isBound(self) { thread.context = nil }
    }

    /// Ends a failed top-level resolve: releases what it was building.
    func failTopLevel(_ error: any Error) {
        guard usedCoordinator else { return }
        // Unbound first: releasing what it built may run a deinit that resolves, which must
        // start a resolve of its own instead of joining this failed one.
        let thread = ThreadState.current
        if thread.isBound(self) { thread.context = nil }
        BuildCoordinator.shared.fail(self, with: error)
    }

    /// Unbinds the finished context from `thread`, which keeps it as its spare if it keeps none
    /// yet. Whether the spare may be reused is decided when it is taken (`takeSpare`, which
    /// resets its coordination state, `isAsync` included).
    func unbind(from thread: ThreadState) {
        thread.context = nil
        topLevelStart = nil
        clearFinishedWork()
        lastConstructed = nil
        // Set by `resolveAsync`'s shortcut; a resolve that never took part in coordination was
        // never seen by another one.
        if isAsync, !usedCoordinator { isAsync = false }
        if thread.spare == nil, !isWeaklyReferenced { thread.spare = self }
    }

    /// The thread's spare context, ready for a new top-level resolve, or `nil`. One that took
    /// part in coordination may have been referenced by other threads: it is reused only when
    /// no other reference to it is left (then none can appear: nothing hands it out any more),
    /// and its coordination state is reset under the coordinator's lock, which orders the
    /// other threads' last accesses before this thread's.
    static func takeSpare(of thread: ThreadState) -> ResolutionContext? {
        guard var spare = thread.spare.take() else { return nil }
        guard spare.usedCoordinator else { return spare }
        guard isKnownUniquelyReferenced(&spare) else { return nil }
        spare.resetCoordination()
        return spare
    }

    /// Resets the coordination state of this finished synchronous context, which nothing else
    /// references any more, under the coordinator's lock (which guards that state).
    private func resetCoordination() {
        BuildCoordinator.shared.withLock { _ in
            // Invariant: a finished resolve has published or released its slots, left its
            // group and its waits (`finish`, `fail`), and no other context references it.
            assert(
                isDone && ownedSlots.isEmpty && group == nil && waitingOn == nil && handedOffBy == nil
                    && waiters == 0,
                "ScopeGraph: a context reused before its resolve let go of the coordinator")
            // Set by `resolveAsync`'s shortcut; other resolves read it under this lock.
            isAsync = false
            isDone = false
            waitingSlot = nil
            waitPath.removeAll(keepingCapacity: true)
            usedCoordinator = false
        }
    }

    /// Drops what a finished resolve may still hold: blocks that never ran (their resolvers
    /// reference this context: a cycle otherwise), frames left by a block that threw, and its
    /// `graph` instances. Once its `finish` or `fail` has returned, no other thread reads them
    /// (a group runs its members' blocks before it publishes, and never after it failed).
    func clearFinishedWork() {
        if !stack.isEmpty { stack.removeAll() }
        if !pending.isEmpty { pending.removeAll() }
        if !graph.isEmpty { graph.removeAll() }
        if !incompleteGraph.isEmpty { incompleteGraph.removeAll() }
        incompleteDepth = 0
        sawIncomplete = false
    }

    static func resolve<T>(_ key: Key, as type: T.Type, from start: Container, arguments: Arguments?) throws -> T {
        try withContext { try $0.resolve(key, as: type, from: start, arguments: arguments) }
    }

    static func resolveIfRegistered<T>(_ key: Key, as type: T.Type, from start: Container) throws -> T? {
        do {
            return try withContext { context in
                // One lookup decides: a registration removed meanwhile on another thread is
                // either found (and built) or not registered, never found and then missing.
                try context.resolve(key, as: type, from: start, arguments: nil, ifRegistered: true)
            }
        } catch is NothingRegistered {
            return nil
        }
    }

    static func resolveAll<T>(_ type: T.Type, from start: Container) throws -> [T] {
        try withContext { context in
            let scope = ScopeActivity.current
            var seen: Set<Key> = []
            // One instance per registration, even when it answers for `T` under several tags.
            var included: Set<UInt64> = []
            var results: [T] = []
            let order = start.lookupOrder()
            if let shutDown = order.first(where: \.isShutDown) {
                throw context.shutDownError(Key(T.self, tag: nil), container: shutDown.name)
            }
            for container in order {
                let candidates = container.registrationsInOrder(scope: scope) {
                    $0.type == T.self && $0.arguments.isEmpty
                }
                for (key, entry) in candidates where seen.insert(key).inserted {
                    guard included.insert(entry.serial).inserted else { continue }
                    let request = Request(key: key, start: start, arguments: nil)
                    results.append(try context.produce(entry, request, as: T.self))
                }
            }
            return results
        }
    }

    /// Resolves `key` from `start` in this resolve. `memoized` is the registration the
    /// cached-read probe found for `key` in `start`'s memo (no scope was active, `start` was
    /// not shut down): it answers without a second lookup.
    ///
    /// With `ifRegistered` (`resolveIfRegistered`), nothing answering the request itself
    /// throws `NothingRegistered` (for the caller to return `nil`), and so does a registration
    /// whose container was freed after the lookup found it; a missing dependency of what does
    /// answer still throws its `ResolutionError`.
    func resolve<T>(
        _ key: Key, as type: T.Type, from start: Container, arguments: Arguments?, memoized: AnyEntry? = nil,
        ifRegistered: Bool = false
    ) throws -> T {
        noteTopLevelStart(start)
        // The scope the calling task sees now: one entered inside a factory applies here.
        let scope = ScopeActivity.current
        if let entry = try memoized ?? lookup(key, from: start, scope: scope) {
            let request = Request(key: key, start: start, arguments: arguments)
            guard ifRegistered, entry.lifetime.isOwnerRooted else {
                return try produce(entry, request, as: T.self)
            }
            // A collaborator freed since the lookup found its registration: nothing answers. The
            // owner is held until the instance is produced, so it cannot go in between.
            guard let owner = entry.owner else { throw missing(key, from: start, ifRegistered: true) }
            return try withExtendedLifetime(owner) { try produce(entry, request, as: T.self) }
        }
        return try resolveUnregistered(
            key, as: T.self, from: start, arguments: arguments, scope: scope, ifRegistered: ifRegistered)
    }

    /// What a request for `key` throws when nothing answers it: the `ResolutionError`, or
    /// for `resolveIfRegistered` (`ifRegistered`) `NothingRegistered`, unless the type and tag
    /// are registered with other arguments, which is not "nothing" (for an optional, the
    /// wrapped key is the one looked up last).
    func missing(_ key: Key, from start: Container, ifRegistered: Bool) -> any Error {
        let error = missingError(key, from: start)
        guard ifRegistered else { return error }
        if case .argumentMismatch = error.kind { return error }
        return NothingRegistered()
    }

    /// `resolve` when nothing is registered for `key` itself: `Optional<Wrapped>` resolves
    /// `Wrapped`, `Provider<T>` and `Lazy<T>` resolve `T` later; else `missing`. Kept out of
    /// `resolve`, whose every call would otherwise pay the metadata of the `T?` made here.
    @inline(never)
    private func resolveUnregistered<T>(
        _ key: Key, as type: T.Type, from start: Container, arguments: Arguments?, scope: ResolutionScope?,
        ifRegistered: Bool
    ) throws -> T {
        // Optional<Wrapped> with nothing registered for the optional itself resolves Wrapped.
        if let optional = T.self as? any OptionalResolvable.Type {
            let wrappedKey = Key(optional.wrappedType, tag: key.tag, arguments: key.arguments)
            guard let entry = try lookup(wrappedKey, from: start, scope: scope) else {
                throw missing(wrappedKey, from: start, ifRegistered: ifRegistered)
            }
            let request = Request(key: wrappedKey, start: start, arguments: arguments)
            let value = try produceAny(entry, request)
            guard let wrapped = optional.wrap(value) else { throw error(.typeMismatch, wrappedKey) }
            // Checked: `wrap` returns an `Optional<Wrapped>`, which is `T`.
            return wrapped as! T
        }
        if let deferred = try deferredValue(key, as: T.self, from: start, scope: scope, ifRegistered: ifRegistered) {
            return deferred
        }
        throw missing(key, from: start, ifRegistered: ifRegistered)
    }

    /// `start.lookup`, failing with `.containerShutDown` when `start`, or a container the walk
    /// reaches, has been shut down.
    func lookup(_ key: Key, from start: Container, scope: ResolutionScope?) throws -> AnyEntry? {
        if start.isShutDown { throw shutDownError(key, container: start.name) }
        do {
            return try start.lookup(key, scope: scope)
        } catch {
            throw shutDownError(key, container: error.container)
        }
    }

    func produce<T>(_ entry: AnyEntry, _ request: Request, as type: T.Type) throws -> T {
        guard let observer = ScopeActivity.current?.observer else {
            return try entry.produce(request, as: T.self, in: self)
        }
        return try observing(entry, request, observer) { try entry.produce(request, as: T.self, in: self) }
    }

    func produceAny(_ entry: AnyEntry, _ request: Request) throws -> Any {
        guard let observer = ScopeActivity.current?.observer else { return try entry.produceAny(request, in: self) }
        return try observing(entry, request, observer) { try entry.produceAny(request, in: self) }
    }

    /// Runs `body` and tells `observer` what it did. A factory that ran for this request is
    /// the last one to return before the request does, so "new" is exact.
    private func observing<R>(
        _ entry: AnyEntry, _ request: Request, _ observer: any ResolutionObserver, _ body: () throws -> R
    ) throws -> R {
        let dependent = stack.last?.entry ?? inheritedDependent
        let depth = inheritedDepth + stack.count
        let clock = ContinuousClock()
        let started = clock.now
        lastConstructed = nil
        let value = try body()
        let isNew = lastConstructed == entry.serial && lastConstructedDepth == depth - inheritedDepth
        observer.resolved(
            ResolutionEvent(
                key: request.key, entry: entry, dependent: dependent, start: request.start, isNew: isNew,
                duration: clock.now - started, depth: depth))
        return value
    }
}

/// What `resolveIfRegistered` throws to itself when nothing answers the request itself (a
/// missing dependency of what does answer still throws its `ResolutionError`).
struct NothingRegistered: Error {}

/// Lets `resolve` see through `Optional<Wrapped>`.
protocol OptionalResolvable {
    static var wrappedType: Any.Type { get }
    static func wrap(_ value: Any) -> Any?
}

extension Optional: OptionalResolvable {
    static var wrappedType: Any.Type { Wrapped.self }
    static func wrap(_ value: Any) -> Any? {
        guard let wrapped = value as? Wrapped else { return nil }
        return Optional(wrapped) as Any
    }
}
