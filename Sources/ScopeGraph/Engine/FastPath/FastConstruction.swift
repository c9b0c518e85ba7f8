#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The typed fast path, compiled into clients: a `unique` registration with a plain
/// synchronous factory and no `onResolved` blocks, found by the cached-read probe (so no scope
/// is active and the container is not shut down), is constructed by code specialized for its
/// type in the caller's module. Everything it needs of the engine is here, not generic: begin,
/// then the factory, called directly, then `finish` or `fail`. Anything else (async, the main
/// actor, a resolve in another task, observers, errors) takes the general path.
///
/// A top-level request begins no resolve: it leaves a pending construction on its thread
/// (below, "The pending top-level construction"), and only a request made inside the factory
/// (through its `Resolver` or directly) turns it into a resolve
/// (`ThreadState.materializePendingTop`), with this construction as its first frame.
/// A factory that resolves nothing (most transient services) never needs one. A nested request
/// joins the resolve in progress and pushes its frame, with the cycle check.
/// Docs/Architecture.md lists what is compiled into clients.
@usableFromInline
struct FastConstruction {
    /// The resolve of a nested request, unretained; `nil` for a top-level one (see
    /// `beginPendingTop`). It is bound to the thread for the whole construction (the
    /// construction runs inside it), and whatever bound it holds it (`withContext`, the
    /// thread's `pendingContext`); debug builds check that it is still bound (`checkedContext`).
    @usableFromInline let context: Unmanaged<ResolutionContext>?
    /// The registration, unretained (a retain and a release per request, measured: 30
    /// instructions in A): `construct` holds it for the whole construction, which never
    /// outlives that call. Debug builds check it with its identity (`entryIdentity`).
    private let entry: Unmanaged<AnyEntry>
    #if DEBUG
    private let entryIdentity: UInt64
    #endif
    /// The thread this construction left pending (a top-level request), unretained:
    /// the thread-local keeps the thread's state alive while the thread runs.
    private let beganOn: Unmanaged<ThreadState>?

    /// Begins the construction of `entry`'s instance for a request made on `start`: in the
    /// resolve in progress on this thread, else as a top-level request left pending on the
    /// thread. `nil` when the general path must take the request (in an async factory's task).
    /// Throws `.circularDependency` when the registration is already being built in this
    /// resolve. `thread` is the current thread's state, as the probe found it
    /// (`CachedRead.thread`): not looked up again.
    @usableFromInline
    static func begin(_ entry: AnyEntry, from start: Container, on thread: Unmanaged<ThreadState>) throws
        -> FastConstruction?
    {
        assert(
            thread.toOpaque() == ThreadState.currentUnmanaged.toOpaque(),
            "ScopeGraph: a fast construction begun with another thread's state")
        if let inProgress = thread._withUnsafeGuaranteedRef({ $0.resolveInProgress() }) {
            return try begin(entry, in: inProgress)
        }
        // A `container.resolve` made directly inside an async factory joins its resolve, and
        // a request from one of its child tasks is a branch of it (a child task inherits the
        // task-local): both are the general path's.
        if ResolutionContext.taskContext != nil { return nil }
        thread._withUnsafeGuaranteedRef { $0.beginPendingTop(entry, from: start) }
        return FastConstruction(context: nil, entry: entry, beganOn: thread)
    }

    /// Begins the construction of `entry`'s instance for a request through `resolver`: in
    /// the resolver's resolve, which must be bound to this thread (else `nil`: the general
    /// path takes a resolver used on another thread or in an async factory's task); a
    /// resolver of no resolve (a top-level factory's) begins as a request on its container.
    @usableFromInline
    static func begin(_ entry: AnyEntry, via resolver: Resolver, on thread: Unmanaged<ThreadState>) throws
        -> FastConstruction?
    {
        guard let context = resolver.context else { return try begin(entry, from: resolver.container, on: thread) }
        assert(
            thread.toOpaque() == ThreadState.currentUnmanaged.toOpaque(),
            "ScopeGraph: a fast construction begun with another thread's state")
        guard thread._withUnsafeGuaranteedRef({ $0.isBound(context) }) else { return nil }
        return try begin(entry, in: context)
    }

    /// Begins a nested construction in `context`, the resolve bound to this thread: pushes
    /// its frame, with the cycle check.
    private static func begin(_ entry: AnyEntry, in context: ResolutionContext) throws -> FastConstruction {
        try context.enterConstruction(entry, key: nil, identity: entry.serial)
        return FastConstruction(context: .passUnretained(context), entry: entry, beganOn: nil)
    }

    private init(context: Unmanaged<ResolutionContext>?, entry: AnyEntry, beganOn: Unmanaged<ThreadState>?) {
        self.context = context
        self.entry = .passUnretained(entry)
        self.beganOn = beganOn
        #if DEBUG
        entryIdentity = entry.liveness.current
        #endif
    }

    /// The resolve of a nested construction, checked in debug builds to be still bound to
    /// this thread (so alive).
    private func checkedContext(_ context: Unmanaged<ResolutionContext>) -> Unmanaged<ResolutionContext> {
        #if DEBUG
        assert(
            ThreadState.current.boundContext?.toOpaque() == context.toOpaque(),
            "ScopeGraph: a fast construction outlived the binding of its resolve")
        #endif
        return context
    }

    /// The registration, checked in debug builds to be the one `begin` was given, still alive.
    private var checkedEntry: Unmanaged<AnyEntry> {
        #if DEBUG
        // Read without a retain: the object may be gone.
        assert(
            entry._withUnsafeGuaranteedRef { $0.liveness.current } == entryIdentity,
            "ScopeGraph: a fast construction outlived its registration")
        #endif
        return entry
    }

    /// The factory returned: pops the frame; for a top-level request, ends the resolve its
    /// factory's requests made, if they made one (their blocks, publication).
    @usableFromInline
    func finish() throws {
        try checkedEntry._withUnsafeGuaranteedRef { entry in
            if let context {
                return checkedContext(context)._withUnsafeGuaranteedRef { $0.leaveConstruction(entry) }
            }
            try topLevelThread._withUnsafeGuaranteedRef { thread in
                guard let made = thread.endPendingTop(entry) else { return }
                made.leaveConstruction(entry)
                defer { made.unbind(from: thread) }
                try made.endTopLevel()
            }
        }
    }

    /// The factory threw `error`: pops the frame and, for a top-level request, fails the
    /// resolve (made now if no request made it, for the error's path). Returns the error to
    /// throw (see `ResolutionContext.failConstruction`).
    @usableFromInline
    func fail(_ error: any Error) -> any Error {
        checkedEntry._withUnsafeGuaranteedRef { entry in fail(entry, error) }
    }

    private func fail(_ entry: AnyEntry, _ error: any Error) -> any Error {
        if let context {
            return checkedContext(context)._withUnsafeGuaranteedRef { $0.failConstruction(entry.key, error) }
        }
        return topLevelThread._withUnsafeGuaranteedRef { thread in
            if thread.pendingContext == nil { _ = thread.materializePendingTop() }
            // Invariant: made just above if no request made it.
            guard let made = thread.endPendingTop(entry) else { preconditionFailure("ScopeGraph: no resolve to fail") }
            let failure = made.failConstruction(entry.key, error)
            made.endFailedTopLevel(failure, on: thread)
            return failure
        }
    }

    /// The thread of a top-level construction (`context == nil`).
    private var topLevelThread: Unmanaged<ThreadState> {
        // Invariant: a top-level construction has `beganOn` (`begin` sets it with `context == nil`).
        guard let beganOn else { preconditionFailure("ScopeGraph: a top-level construction without its thread") }
        return beganOn
    }

    /// Whether the probe may hand a registration to this path. Debug builds take the general
    /// path only when the environment sets `SCOPEGRAPH_GENERAL_PATH_ONLY` (CI runs the core
    /// suites both ways).
    #if DEBUG
    static let isEnabled = getenv("SCOPEGRAPH_GENERAL_PATH_ONLY") == nil
    #else
    @inline(__always) static var isEnabled: Bool { true }
    #endif
}

extension FastConstruction {
    // The construction holds `entry` unretained: `construct` keeps it alive until `finish` or
    // `fail` has returned.

    /// Resolves `entry`'s instance for a request made on `start` (a top-level request, or one
    /// inside a factory, which joins the thread's resolve) on the fast path, or `nil` when the
    /// general path must (see `begin`).
    @inlinable
    static func construct<T>(_ entry: Entry<T>, from start: Container, on thread: Unmanaged<ThreadState>) throws -> T? {
        try withExtendedLifetime(entry) {
            guard let construction = try begin(entry, from: start, on: thread) else { return nil }
            let resolver = Resolver(container: start, context: construction.context?.takeUnretainedValue())
            return try construction.run(entry, with: resolver)
        }
    }

    /// Resolves `entry`'s instance for a request through a factory's `resolver` on the fast
    /// path, or `nil` when the general path must (see `begin`). The request joins the
    /// resolver's resolve, so its factory gets the same resolver (measured: B 4,971
    /// instructions with a new one, 4,872 with an optional one, which copies it).
    @inlinable
    static func construct<T>(_ entry: Entry<T>, via resolver: Resolver, on thread: Unmanaged<ThreadState>) throws
        -> T?
    {
        try withExtendedLifetime(entry) {
            guard let construction = try begin(entry, via: resolver, on: thread) else { return nil }
            return try construction.run(entry, with: resolver)
        }
    }

    /// Calls the factory with `resolver`, then finishes the construction, or fails it.
    @inlinable
    func run<T>(_ entry: Entry<T>, with resolver: Resolver) throws -> T {
        let value: T
        do {
            value = try entry.callPlain(resolver)
        } catch {
            throw fail(error)
        }
        try finish()
        return value
    }
}

extension ResolutionContext {
    /// Fails and unbinds a top-level resolve begun on `thread` (`FastConstruction`), as
    /// `withContext` does.
    func endFailedTopLevel(_ error: any Error, on thread: ThreadState) {
        failTopLevel(error)
        unbind(from: thread)
    }
}

// MARK: - The pending top-level construction

/// A top-level `unique` construction on the fast path that has no resolve yet: the thread
/// keeps what a resolve made for it later needs, its entry and where the request started,
/// while the factory runs (`ThreadState.pendingEntry`, `pendingStart`), and then the resolve
/// a request inside the factory made (`pendingContext`), until the construction ends.
extension ThreadState {
    /// The resolve in progress on this thread: the bound context, else the resolve that a
    /// pending top-level construction turns into now (a request inside its factory joins it).
    func resolveInProgress() -> ResolutionContext? {
        if let context { return context }
        guard pendingEntry != nil else { return nil }
        return materializePendingTop()
    }

    /// Records a top-level construction of `entry` begun without a resolve; `entry` and
    /// `start` must outlive it (the construction holds its entry, the caller of `resolve` the
    /// container).
    func beginPendingTop(_ entry: AnyEntry, from start: Container) {
        assert(pendingEntry == nil && context == nil, "ScopeGraph: a pending construction inside a resolve")
        pendingEntry = .passUnretained(entry)
        pendingStart = .passUnretained(start)
        #if DEBUG
        pendingIdentities = (entry.liveness.current, start.liveness.current)
        #endif
    }

    /// Ends the top-level construction of `entry`; returns the resolve a request inside its
    /// factory made for it, if one did (still bound to this thread, for the caller to end).
    func endPendingTop(_ entry: AnyEntry) -> ResolutionContext? {
        assert(
            pendingEntry?.toOpaque() == Unmanaged.passUnretained(entry).toOpaque(),
            "ScopeGraph: a construction ended another's pending state")
        pendingEntry = nil
        pendingStart = nil
        return pendingContext.take()
    }

    /// Makes the resolve of the pending top-level construction and binds it to this thread,
    /// with the construction as its first frame (so cycles through it are found and errors
    /// name it). `pendingContext` holds it until the construction ends.
    func materializePendingTop() -> ResolutionContext {
        // Invariant: called only with a construction pending and no resolve bound.
        guard let entry = pendingEntry, let start = pendingStart, pendingContext == nil, context == nil else {
            preconditionFailure("ScopeGraph: no pending construction to make a resolve for")
        }
        #if DEBUG
        // Read without a retain: the objects may be gone.
        assert(
            entry._withUnsafeGuaranteedRef { $0.liveness.current } == pendingIdentities.entry
                && start._withUnsafeGuaranteedRef { $0.liveness.current } == pendingIdentities.start,
            "ScopeGraph: a pending construction outlived its registration or the container it started from")
        #endif
        let made = ResolutionContext.takeSpare(of: self) ?? ResolutionContext()
        pendingContext = made
        context = made
        entry._withUnsafeGuaranteedRef { entry in
            start._withUnsafeGuaranteedRef { made.beginAsTopLevel(of: entry, from: $0) }
        }
        return made
    }
}

extension ResolutionContext {
    /// Starts this fresh context as the resolve of a pending top-level construction of
    /// `entry`: its frame first, as `enterConstruction` would have pushed it (the stack is
    /// empty, so it cannot be a cycle).
    func beginAsTopLevel(of entry: AnyEntry, from start: Container) {
        assert(stack.isEmpty && blockLineage.isEmpty, "ScopeGraph: a pending construction's resolve was not fresh")
        noteTopLevelStart(start)
        stack.append(Frame(requestedKey: nil, entry: entry, identity: entry.serial))
    }
}
