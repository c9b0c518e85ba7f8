/// A new `unique` or `graph` instance being built on the inlined resolve path: the frame is
/// pushed, the caller runs the factory (specialized for its type), then finishes or fails it.
@usableFromInline
struct UncachedConstruction {
    @usableFromInline let entry: AnyEntry
    @usableFromInline let resolver: Resolver
    let context: ResolutionContext
    let identity: ResolutionContext.Identity
    /// Set when this construction is a top-level resolve (and must end it). Unretained: a
    /// thread's state lives as long as the thread.
    let thread: Unmanaged<ThreadState>?
}

extension Container {
    /// Starts building a new instance of the memoized `unique`/`graph` registration of
    /// `type`'s untagged, argument-free key, when nothing else needs the general path: no scope
    /// may be active, the resolve in progress (if any) holds no `graph` instance of it (see
    /// `sharedGraphInstance`), and it is not already being built (a cycle, which the general
    /// path reports).
    @usableFromInline
    func beginUncachedConstruction(ofType type: ObjectIdentifier) -> UncachedConstruction? {
        guard !ScopeActivity.mayBeActive else { return nil }
        let threadReference = ThreadState.currentUnmanaged
        let thread = threadReference.takeUnretainedValue()
        guard let entry = Reclamation.read(thread, { memoizedUncachedEntry(ofType: type) }) else { return nil }
        let identity = ResolutionContext.Identity(entry: ObjectIdentifier(entry), container: ObjectIdentifier(self))
        if let running = thread.context?.takeUnretainedValue() {
            if entry.lifetime == .graph, running.graphInstance(identity) != nil { return nil }
            guard let resolver = try? running.enterConstruction(entry, key: entry.key, root: self, identity: identity)
            else {
                return nil
            }
            return UncachedConstruction(
                entry: entry, resolver: resolver, context: running, identity: identity, thread: nil)
        }
        let context = ResolutionContext.startTopLevel(on: thread)
        context.noteTopLevelStart(self)
        // A top-level construction has an empty stack: no cycle is possible.
        let resolver = try! context.enterConstruction(entry, key: entry.key, root: self, identity: identity)
        return UncachedConstruction(
            entry: entry, resolver: resolver, context: context, identity: identity, thread: threadReference)
    }

    /// The `graph` instance of the memoized registration of `type`'s untagged, argument-free
    /// key that the resolve in progress on this thread already holds, if any (and no scope may
    /// be active).
    @usableFromInline
    func sharedGraphInstance(ofType type: ObjectIdentifier) -> Any? {
        guard !ScopeActivity.mayBeActive else { return nil }
        let thread = ThreadState.currentUnmanaged.takeUnretainedValue()
        guard let running = thread.context?.takeUnretainedValue(),
            let entry = Reclamation.read(thread, { memoizedUncachedEntry(ofType: type) }), entry.lifetime == .graph
        else { return nil }
        return running.graphInstance(
            ResolutionContext.Identity(entry: ObjectIdentifier(entry), container: ObjectIdentifier(self)))
    }

    /// Finishes a construction whose factory returned `value`.
    @usableFromInline
    func finishUncachedConstruction(_ construction: UncachedConstruction, _ value: Any) throws {
        let context = construction.context
        context.leaveConstruction(
            construction.entry, key: construction.entry.key, resolver: construction.resolver, value: value)
        if construction.entry.lifetime == .graph { context.storeGraphInstance(construction.identity, value) }
        if let thread = construction.thread { try context.endTopLevel(on: thread.takeUnretainedValue()) }
    }

    /// Fails a construction whose factory threw; returns the error to throw.
    @usableFromInline
    func failUncachedConstruction(_ construction: UncachedConstruction, _ error: any Error) -> any Error {
        let failure = construction.context.failConstruction(construction.entry.key, error)
        guard let thread = construction.thread else { return failure }
        return construction.context.endTopLevel(on: thread.takeUnretainedValue(), failure: failure)
    }
}
