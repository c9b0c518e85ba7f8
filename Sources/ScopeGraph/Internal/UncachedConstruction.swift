/// A new `unique` or `graph` instance being built on the inlined resolve path: the frame is
/// pushed, the caller runs the factory (specialized for its type, with a `Resolver` on the
/// requesting container), then finishes or fails it.
@usableFromInline
struct UncachedConstruction {
    /// The entry, or for a construction from a record its factory's context (if
    /// it has one): retained by `beginFastPath`, released by `finish…` or `fail…`, exactly
    /// once. Kept as a raw pointer so that copying the construction around touches no
    /// reference count.
    @usableFromInline let held: UnsafeMutableRawPointer?
    /// The function of the factory of a construction from a record; `nil` for
    /// a construction of an entry.
    @usableFromInline let plainFunction: UnsafeRawPointer?
    /// Unretained: the thread's state keeps its contexts alive while they are bound.
    let context: Unmanaged<ResolutionContext>
    let identity: ResolutionContext.Identity
    /// A `graph` registration: the finished instance is kept, boxed, for the rest of the
    /// resolve.
    @usableFromInline let isGraph: Bool
    /// Set when this construction is a top-level resolve (and must end it). Unretained: a
    /// thread's state lives as long as the thread.
    let thread: Unmanaged<ThreadState>?

    init(
        entry: Unmanaged<AnyEntry>, context: Unmanaged<ResolutionContext>, identity: ResolutionContext.Identity,
        isGraph: Bool, thread: Unmanaged<ThreadState>?
    ) {
        self.held = entry.toOpaque()
        self.plainFunction = nil
        self.context = context
        self.identity = identity
        self.isGraph = isGraph
        self.thread = thread
    }

    init(
        plain factory: PlainFactory, context: Unmanaged<ResolutionContext>, identity: ResolutionContext.Identity,
        thread: Unmanaged<ThreadState>?
    ) {
        self.held = factory.context.map { Unmanaged.passRetained($0).toOpaque() }
        self.plainFunction = factory.function
        self.context = context
        self.identity = identity
        self.isGraph = false
        self.thread = thread
    }

    /// The factory of a construction from a record of `T`.
    @inlinable
    func plainFactory<T>(of type: T.Type, function: UnsafeRawPointer) -> FactoryBox<T> {
        FactoryBox(
            PlainFactory(function: function, context: held.map { Unmanaged.fromOpaque($0).takeUnretainedValue() }))
    }

    /// Releases what the construction held.
    func releaseHeld() {
        if let held { Unmanaged<AnyObject>.fromOpaque(held).release() }
    }
}

extension Container {
    /// The boxed instance of `entry` (unretained, inside a protected read) that the resolve in
    /// progress on this thread holds, when it is a `graph` registration resolved from here
    /// before (or, for a block's own request, from elsewhere: see `graphInstancePosition`).
    func sharedGraphInstanceBox(_ entry: Unmanaged<AnyEntry>, on thread: Unmanaged<ThreadState>)
        -> Unmanaged<AnyObject>?
    {
        guard let running = thread._withUnsafeGuaranteedRef({ $0.context }) else { return nil }
        return entry._withUnsafeGuaranteedRef { entry -> Unmanaged<AnyObject>? in
            guard entry.lifetime == .graph else { return nil }
            return running._withUnsafeGuaranteedRef { context in
                context.graphInstancePosition(of: ObjectIdentifier(entry), from: ObjectIdentifier(self)).map {
                    Unmanaged.passUnretained(context.graphInstanceBox(at: $0))
                }
            }
        }
    }

    /// Starts building a new instance of `entry`, the memoized `unique`/`graph` registration
    /// of an argument-free key, tagged or not (whose `graph` instance, if any, the resolve
    /// in progress does not hold yet); or leaves it to the general path, which reports a
    /// cycle when the same instance is already being built.
    /// `entry` comes retained and, with `construct`, the construction owns that reference;
    /// otherwise it is released here.
    func beginUncachedConstruction(_ retained: Unmanaged<AnyEntry>, on threadReference: Unmanaged<ThreadState>)
        -> FastPath
    {
        let path = retained._withUnsafeGuaranteedRef { entry -> FastPath in
            let identity = ResolutionContext.Identity(entry)
            if let running = threadReference._withUnsafeGuaranteedRef({ $0.context }) {
                return running._withUnsafeGuaranteedRef { context -> FastPath in
                    guard (try? context.enterConstruction(entry, key: nil, identity: identity)) != nil else {
                        return .general
                    }
                    return .construct(
                        UncachedConstruction(
                            entry: retained, context: running, identity: identity,
                            isGraph: entry.lifetime == .graph, thread: nil))
                }
            }
            let context = threadReference._withUnsafeGuaranteedRef { ResolutionContext.startTopLevel(on: $0) }
            context._withUnsafeGuaranteedRef { context in
                context.noteTopLevelStart(self)
                // A top-level construction has an empty stack: no cycle is possible.
                try! context.enterConstruction(entry, key: nil, identity: identity)
            }
            return .construct(
                UncachedConstruction(
                    entry: retained, context: context, identity: identity, isGraph: entry.lifetime == .graph,
                    thread: threadReference))
        }
        if case .construct = path { return path }
        // Released once nothing here uses the entry any more (it may be the last reference).
        retained.release()
        return path
    }

    /// Finishes a construction whose factory returned `value`; `graphBox` is `value` in a
    /// `StrongBox<T>` when the construction `isGraph`.
    @usableFromInline
    func finishUncachedConstruction(
        _ construction: UncachedConstruction, _ value: @autoclosure () -> Any, graphBox: AnyObject?
    ) throws {
        // Held: the entry of a construction of an entry (see `finishPlainConstruction`).
        let entry = Unmanaged<AnyEntry>.fromOpaque(construction.held.unsafelyUnwrapped)
        defer { entry.release() }
        try entry._withUnsafeGuaranteedRef { entry in
            try construction.context._withUnsafeGuaranteedRef { context in
                context.leaveConstruction(entry, key: entry.key, root: self, value: value())
                if let graphBox {
                    context.storeGraphInstance(of: ObjectIdentifier(entry), from: ObjectIdentifier(self), box: graphBox)
                }
                if let thread = construction.thread {
                    try thread._withUnsafeGuaranteedRef { try context.endTopLevel(on: $0) }
                }
            }
        }
    }

    /// Finishes a construction from a record whose factory returned `value`.
    @usableFromInline
    func finishPlainConstruction(_ construction: UncachedConstruction, _ value: @autoclosure () -> Any) throws {
        defer { construction.releaseHeld() }
        try construction.context._withUnsafeGuaranteedRef { context in
            if let made = entryMadeMeanwhile(identity: construction.identity, in: context) {
                // The record became an entry that got blocks while its factory ran: they run for
                // this instance too, as they would have had it been an entry all along.
                context.leaveConstruction(made, key: made.key, root: self, value: value())
            } else {
                context.leavePlainConstruction()
            }
            if let thread = construction.thread {
                try thread._withUnsafeGuaranteedRef { try context.endTopLevel(on: $0) }
            }
        }
    }

    /// Fails a construction whose factory threw; returns the error to throw.
    @usableFromInline
    func failUncachedConstruction(_ construction: UncachedConstruction, _ error: any Error) -> any Error {
        defer { construction.releaseHeld() }
        return construction.context._withUnsafeGuaranteedRef { context in
            // The construction's own frame, on top: its key is the entry's, or the record's.
            let failure = context.failConstruction(context.stack.last!.key, error)
            guard let thread = construction.thread else { return failure }
            return thread._withUnsafeGuaranteedRef { context.endTopLevel(on: $0, failure: failure) }
        }
    }

    /// The entry made, while a construction from a record ran, from that record (by its
    /// `identity`), when it has `onResolved` blocks; `nil` otherwise. Looked for only when a
    /// block was added to any such entry since the resolve's first construction from a record
    /// started (`Container.recordBlocks`, `ResolutionContext.recordBlocksSeen`): otherwise
    /// there is none.
    private func entryMadeMeanwhile(
        identity: ResolutionContext.Identity, in context: ResolutionContext
    ) -> AnyEntry? {
        guard Container.recordBlocks.load(ordering: .acquiring) != context.recordBlocksSeen.unsafelyUnwrapped else {
            return nil
        }
        let key = context.stack.last!.key
        // The record was found here or in an ancestor (the container whose memo answers).
        var container: Container? = self
        while let current = container {
            if let entry = current.withState({ $0.registrations[key]?.entry }), entry.identity == identity.bits {
                return entry.hasOnResolvedBlocks ? entry : nil
            }
            container = current.parent
        }
        return nil
    }

    /// Starts building a new instance from `plain`, the record stored under `key` here, on
    /// its first lookup (see `beginUncachedConstruction`); `.general` when its registration is
    /// already being built on this thread (the general path reports the cycle).
    func beginPlainConstruction(
        _ plain: PlainFactory, identity bits: UInt, key: consuming Key, on threadReference: Unmanaged<ThreadState>
    ) -> FastPath {
        let identity = ResolutionContext.Identity(bits: bits)
        // The key moves into the frame (through the closures below), without a copy.
        var movingKey = Optional(key)
        if let running = threadReference._withUnsafeGuaranteedRef({ $0.context }) {
            return running._withUnsafeGuaranteedRef { context -> FastPath in
                guard (try? context.enterPlainConstruction(movingKey.take()!, identity: identity)) != nil else {
                    return .general
                }
                return .construct(UncachedConstruction(plain: plain, context: running, identity: identity, thread: nil))
            }
        }
        let context = threadReference._withUnsafeGuaranteedRef { ResolutionContext.startTopLevel(on: $0) }
        context._withUnsafeGuaranteedRef { context in
            context.noteTopLevelStart(self)
            // A top-level construction has an empty stack: no cycle is possible.
            try! context.enterPlainConstruction(movingKey.take()!, identity: identity)
        }
        return .construct(
            UncachedConstruction(plain: plain, context: context, identity: identity, thread: threadReference))
    }
}
