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
    /// Where the construction runs: in a resolve (a nested request), or left pending on its
    /// thread (a top-level request). One field for both, so that a construction stays small.
    @usableFromInline
    enum Binding {
        /// The resolve of a nested request, unretained. It is bound to the thread for the whole
        /// construction (the construction runs inside it), and whatever bound it holds it
        /// (`withContext`, the thread's `pendingContext`); debug builds check that it is still
        /// bound (`checkedContext`).
        case nested(Unmanaged<ResolutionContext>)
        /// The thread a top-level request left pending (see `beginPendingTop`), unretained: the
        /// thread-local keeps the thread's state alive while the thread runs.
        case topLevel(Unmanaged<ThreadState>)
    }

    @usableFromInline let binding: Binding

    /// The resolve of a nested request; `nil` for a top-level one: with the request's
    /// starting container, what the factory's `Resolver` holds.
    @inlinable var context: Unmanaged<ResolutionContext>? {
        if case .nested(let context) = binding { context } else { nil }
    }

    /// The registration, unretained (a retain and a release per request, measured: 30
    /// instructions in A): `construct` holds it for the whole construction, which never
    /// outlives that call. Debug builds check it with its identity (`entryIdentity`).
    private let entry: Unmanaged<AnyEntry>
    #if DEBUG
    private let entryIdentity: UInt64
    #endif
    /// For a `graph` registration: where the resolve holds the instance it shares for this
    /// request (`ResolutionContext.sharedGraphPosition`), or `keepsGraphInstance` when there is
    /// none yet (the new instance is then kept); `isNotGraph` for `unique`.
    @usableFromInline let graphPosition: Int
    @usableFromInline static var keepsGraphInstance: Int { -1 }
    @usableFromInline static var isNotGraph: Int { -2 }

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
        if let inProgress = thread._withUnsafeGuaranteedRef({ $0.resolveInProgressUnretained() }) {
            return try inProgress._withUnsafeGuaranteedRef { try begin(entry, from: start, in: $0) }
        }
        // A `container.resolve` made directly inside an async factory joins its resolve, and
        // a request from one of its child tasks is a branch of it (a child task inherits the
        // task-local): both are the general path's. So is a top-level `graph` request, whose
        // instance its resolve's blocks may ask for (the fast path keeps it only in a resolve).
        if ResolutionContext.taskContext != nil || entry.lifetime == .graph { return nil }
        thread._withUnsafeGuaranteedRef { $0.beginPendingTop(entry, from: start) }
        return FastConstruction(binding: .topLevel(thread), entry: entry, graphPosition: isNotGraph)
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
        return try begin(entry, from: resolver.container, in: context)
    }

    /// Begins a nested request in `context`, the resolve bound to this thread: for a `graph`
    /// registration whose instance the resolve already shares with requests from `start`,
    /// nothing more (the caller reads it: `sharedOrNew`, `sharedGraphValue`); otherwise
    /// pushes the frame of a new instance, with the cycle check.
    @inline(__always)
    private static func begin(_ entry: AnyEntry, from start: Container, in context: ResolutionContext) throws
        -> FastConstruction
    {
        var graphPosition = isNotGraph
        if entry.lifetime == .graph {
            if let shared = context.sharedGraphPosition(of: entry, from: start) {
                return FastConstruction(binding: .nested(.passUnretained(context)), entry: entry, graphPosition: shared)
            }
            graphPosition = keepsGraphInstance
        }
        try context.enterConstruction(entry, key: nil, identity: entry.serial)
        return FastConstruction(binding: .nested(.passUnretained(context)), entry: entry, graphPosition: graphPosition)
    }

    private init(binding: Binding, entry: AnyEntry, graphPosition: Int) {
        self.binding = binding
        self.entry = .passUnretained(entry)
        self.graphPosition = graphPosition
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

    /// The `graph` instance at `graphPosition`, erased.
    @usableFromInline
    func sharedGraphValue() -> Any {
        // Invariant: a shared position is found only in a nested request's resolve (`begin`).
        guard let context else { preconditionFailure("ScopeGraph: a shared graph instance without its resolve") }
        return checkedContext(context)._withUnsafeGuaranteedRef { $0.sharedGraphValue(at: graphPosition) }
    }

    /// Keeps the new `graph` instance `value`, built for a request from `start`, for the rest
    /// of the resolve (right after `finish`: whether it is complete is the last construction's).
    @usableFromInline
    func keepGraphValue(_ value: Any, from start: Container) {
        // Invariant: `keepsGraphInstance` is set only for a nested request (`begin`).
        guard let context else { preconditionFailure("ScopeGraph: a graph instance without its resolve") }
        checkedEntry._withUnsafeGuaranteedRef { entry in
            checkedContext(context)._withUnsafeGuaranteedRef { $0.keepGraphValue(value, of: entry, from: start) }
        }
    }

    /// The thread of a top-level construction (`context == nil`).
    private var topLevelThread: Unmanaged<ThreadState> {
        // Invariant: a construction without a resolve is a top-level one (`begin`).
        guard case .topLevel(let thread) = binding else {
            preconditionFailure("ScopeGraph: a top-level construction without its thread")
        }
        return thread
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
            return try construction.sharedOrNew(entry, with: resolver)
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
            return try construction.sharedOrNew(entry, with: resolver)
        }
    }

    /// The `graph` instance the resolve shares for this request, if it has one; otherwise a
    /// new instance: calls the factory with `resolver`, then finishes the construction
    /// (keeping a new `graph` instance in the resolve), or fails it.
    @inlinable @inline(__always)
    func sharedOrNew<T>(_ entry: Entry<T>, with resolver: Resolver) throws -> T {
        // Checked: the resolve holds, for a registration of `T`, only instances of `T`.
        if graphPosition >= 0 { return sharedGraphValue() as! T }
        let value: T
        do {
            value = try entry.callPlain(resolver)
        } catch {
            throw fail(error)
        }
        try finish()
        if graphPosition == Self.keepsGraphInstance { keepGraphValue(value, from: resolver.container) }
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
        resolveInProgressUnretained()?.takeUnretainedValue()
    }

    /// `resolveInProgress`, unretained (a retain and a release per nested fast-path request
    /// otherwise, measured: 120 instructions in B). The resolve stays bound to this thread
    /// until the request that asks ends, and whatever bound it holds it (`withContext`,
    /// `pendingContext`).
    func resolveInProgressUnretained() -> Unmanaged<ResolutionContext>? {
        assertBoundContextAlive()
        if let boundContext { return boundContext }
        guard pendingEntry != nil else { return nil }
        return .passUnretained(materializePendingTop())
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
