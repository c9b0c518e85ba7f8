import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of one top-level resolve on one thread: the stack of keys being built, the
/// `graph` instances, the new instances whose `onResolved` blocks are pending, and the cache
/// slots this resolve is building.
///
/// A context lives on the thread that started it (a thread-local points to it while the
/// top-level resolve runs), so a `container.resolve` made inside a factory on the same thread
/// joins it, and a resolve on another thread starts its own. Cross-thread coordination (slot
/// ownership, waiting, groups) goes through `BuildCoordinator`.
final class ResolutionContext: @unchecked Sendable {
    // @unchecked: the fields in the first group are touched only by the thread that owns the
    // context (or, while the owner waits for its group, by the thread running the group's
    // blocks, with the coordinator lock ordering the hand-over); the fields in the second group
    // only with `BuildCoordinator.shared.lock` held. The thread-confined fields skip dynamic
    // exclusivity checks (`@exclusivity(unchecked)`): the context's own code never overlaps
    // accesses to them, and they are on the path of every resolve.

    // Thread-confined.
    @exclusivity(unchecked) private(set) var scope: ResolutionScope?
    /// Where cached lifetimes are cached instead of the containers, when a scope isolates them.
    @exclusivity(unchecked) private(set) var cacheScope: ResolutionScope?
    @exclusivity(unchecked) var stack = FrameStack()
    /// The `graph` instances this resolve holds, each in a `StrongBox<T>` of its entry's type,
    /// so that sharing one needs no dynamic cast.
    @exclusivity(unchecked) private var graph = SmallMap<GraphKey, AnyObject>()
    @exclusivity(unchecked) private var pending: [Pending] = []
    /// Set once this context has taken part in cross-thread coordination.
    @exclusivity(unchecked) var usedCoordinator = false
    /// Set when the top-level request is a cached instance whose build is the resolve's last
    /// act (a request scope's first read of its `perContainer` service): nothing can fail or
    /// be built after it, so the build may publish at once (`BuildCoordinator.built`).
    @exclusivity(unchecked) private var endsWithTopLevelBuild = false
    /// Set when `built` published everything this resolve built: `endTopLevel` has
    /// nothing left to publish.
    @exclusivity(unchecked) var finishedEarly = false
    /// The entry whose factory returned last, and at which depth, for observers.
    @exclusivity(unchecked) private var lastConstructed: ObjectIdentifier?
    @exclusivity(unchecked) private var lastConstructedDepth = -1
    /// While a block runs: the chain of instances whose blocks led to it, itself last. A new
    /// `unique` instance of an entry already in the chain would start the same blocks again,
    /// forever: that is a cycle, reported instead of looping.
    @exclusivity(unchecked) private var blockLineage: [LineageLink] = []
    /// While a block runs: the keys that were being built when its instance's factory
    /// returned (see `Pending.ancestors`), which errors put before the stack's.
    @exclusivity(unchecked) private var blockPath: [Key] = []
    /// While a block runs: the depth of its frame, so that the stack is this deep exactly for
    /// the block's own requests (not for those of the factories they run); -1 otherwise.
    @exclusivity(unchecked) private var blockFrameDepth = -1
    /// `Container.recordBlocks` when this resolve's first construction from a record started
    /// (`nil` before): one that finds it changed when it ends looks for blocks added to its
    /// registration meanwhile (see `Container.entryMadeMeanwhile`).
    @exclusivity(unchecked) private(set) var recordBlocksSeen: Int?
    /// Where the top-level request started, for suggestions in errors.
    /// Unretained: the caller of the top-level resolve holds the container for its duration,
    /// and retaining it (a weakly referenced object, so through its side table) would cost
    /// every resolve.
    @exclusivity(unchecked) private var topLevelStart: Unmanaged<Container>?

    /// Records where a top-level request started (the inlined path calls this).
    func noteTopLevelStart(_ start: Container) {
        if topLevelStart == nil { topLevelStart = Unmanaged.passUnretained(start) }
    }

    // Guarded by BuildCoordinator.shared.lock, which already excludes overlapping accesses:
    // dynamic exclusivity checks would only add cost.
    @exclusivity(unchecked) var group: ResolutionGroup!
    @exclusivity(unchecked) var waitingOn: ResolutionContext?
    @exclusivity(unchecked) var waitingSlot: AnySlot?
    @exclusivity(unchecked) var waitPath: [Key] = []
    @exclusivity(unchecked) var isDone = false
    @exclusivity(unchecked) var ownedSlots: [AnySlot] = []
    /// Slots the coordinator let go of while this context's thread held its lock (see
    /// `BuildCoordinator.publish`), released by that thread after unlocking. Only that thread
    /// touches it.
    @exclusivity(unchecked) var retiredSlots: [AnySlot] = []
    /// How many contexts wait for a slot this one builds (they point to it while they do).
    @exclusivity(unchecked) var waiters = 0
    /// Set by `finish` when, published alone, this context is referenced by no other: its
    /// thread may reuse it.
    @exclusivity(unchecked) var isRecyclable = false

    /// True when this context waits for a slot whose factory has returned, built by a member
    /// of its own group: woken, it reads the instance and goes on, so its wait blocks nobody
    /// (coordinator lock held).
    var canReadWhatItWaitsFor: Bool {
        guard let slot = waitingSlot, slot.builtBox != nil, let owner = waitingOn else { return false }
        return owner.group === group
    }

    struct Frame {
        /// The key as requested, when it may differ from the entry's own (a forwarded type),
        /// and always for a construction from a record (which has no entry; see PlainRegistration.swift).
        let requestedKey: Key?
        /// Unretained: whoever pushes a frame holds its entry until it pops it. `nil` for a
        /// construction from a record.
        unowned(unsafe) let entry: AnyEntry?
        var key: Key { requestedKey ?? entry!.key }
        /// Set for uncached constructions, to detect cycles; cached ones are detected by slot.
        let identity: Identity?
    }

    /// A registration, by identity: the unit uncached cycles are detected on, whichever
    /// container a request for it started from (the contract's cycles "across containers": an
    /// owner-rooted singleton that asks its owner for a `graph` instance a child's request is
    /// building closes a cycle).
    struct Identity: Hashable {
        /// `AnyEntry.identity`, or the identity of the record being built from (see
        /// PlainRegistration.swift).
        let bits: UInt

        init(_ entry: AnyEntry) { bits = entry.identity }
        init(bits: UInt) { self.bits = bits }
    }

    /// What a `graph` instance is shared by within one top-level resolve: its registration and
    /// the container the requests for it start from. An owner-rooted factory asks from the
    /// owner, so it never gets an instance built from a child's view (it would capture the
    /// child's registrations); a block's own request also sees the instances built from
    /// elsewhere (see `graphInstancePosition`).
    struct GraphKey: Hashable {
        let entry: ObjectIdentifier
        let start: ObjectIdentifier
    }

    /// One instance whose blocks led to the running block (see `blockLineage`).
    struct LineageLink {
        let entry: ObjectIdentifier
        let key: Key
        /// The instance of a `unique` registration: its blocks run again for each new one.
        let isUnique: Bool
        /// Reached from the previous link's block through new `unique` instances only. A
        /// shared instance on the way (`graph` or cached) would be found again the next time
        /// round, which closes the chain.
        let reachedThroughUniqueOnly: Bool
    }

    struct Pending {
        /// Process-wide order in which factories finished, so a group of resolves sharing a
        /// cycle runs all its blocks in one order.
        let sequence: Int
        let key: Key
        let entry: AnyEntry
        /// The instances whose blocks led to this one, oldest first (see `blockLineage`).
        let lineage: [LineageLink]
        /// Built, from the running block (if any), through new `unique` instances only.
        let reachedThroughUniqueOnly: Bool
        /// The keys that were being built when this instance's factory returned, from the
        /// top-level request down (not including `key`): the path of its blocks' errors.
        let ancestors: [Key]
        let run: () throws -> Void
    }

    init() {}

    private static let blockSequence = Atomic<Int>(0)

    /// Prepares a fresh or recycled context for a top-level resolve in `scope`.
    private func begin(in scope: ResolutionScope?) {
        // `reset` left both nil; storing nil again would still call into the runtime.
        guard let scope else { return }
        self.scope = scope
        self.cacheScope = scope.cacheScope
    }

    /// Drops everything the finished resolve held (instances, blocks, scope), keeping the
    /// storage, so the thread can reuse this context for its next top-level resolve.
    private func reset() {
        if scope != nil {
            scope = nil
            cacheScope = nil
        }
        if !stack.isEmpty { stack.removeAll() }
        if !graph.isEmpty { graph.removeAll() }
        if !pending.isEmpty { pending.removeAll(keepingCapacity: true) }
        lastConstructed = nil
        recordBlocksSeen = nil
        topLevelStart = nil
        endsWithTopLevelBuild = false
        finishedEarly = false
    }

    // MARK: Thread-local current context

    /// The context of the resolve running on this thread, if any.
    @inline(__always)
    static var current: ResolutionContext? { ThreadState.current.context?.takeUnretainedValue() }

    // MARK: Entry points

    /// Runs `body` in the context of the resolve in progress on this thread, or as a new
    /// top-level resolve: pending `onResolved` blocks run and cached instances are published
    /// before it returns; on failure nothing it built is cached.
    static func withContext<R>(_ body: (ResolutionContext) throws -> R) throws -> R {
        // Unretained: the thread-local keeps the thread's state alive, and the state its own
        // context (`startTopLevel`), for the whole resolve.
        try ThreadState.currentUnmanaged._withUnsafeGuaranteedRef { thread in
            if let context = thread.context { return try context._withUnsafeGuaranteedRef(body) }
            return try startTopLevel(on: thread)._withUnsafeGuaranteedRef { context in
                let result: R
                do {
                    result = try body(context)
                } catch {
                    throw context.endTopLevel(on: thread, failure: error)
                }
                try context.endTopLevel(on: thread)
                return result
            }
        }
    }

    /// Starts a top-level resolve on `thread` (which runs none): a recycled or new context,
    /// bound to the thread and to the task's scope.
    /// The context is the thread's own (`ThreadState.ownContext`), which keeps it alive, so
    /// callers need not retain it.
    static func startTopLevel(on thread: ThreadState) -> Unmanaged<ResolutionContext> {
        let context: Unmanaged<ResolutionContext>
        if let own = thread.ownContext {
            context = own
        } else {
            context = Unmanaged.passRetained(ResolutionContext())
            thread.ownContext = context
        }
        context._withUnsafeGuaranteedRef { $0.begin(in: ScopeActivity.current) }
        thread.context = context
        return context
    }

    /// Ends a successful top-level resolve: runs the pending `onResolved` blocks, publishes
    /// what it built, and unbinds the context.
    func endTopLevel(on thread: ThreadState) throws {
        defer { unbind(from: thread) }
        if finishedEarly { return }
        if !usedCoordinator {
            // Most resolves queue no blocks: no call to find that out.
            guard hasPendingBlocks else { return }
            do {
                try runPendingBlocks()
            } catch {
                throw fail(error)
            }
            // Blocks that built cached instances took part in coordination after all.
            guard usedCoordinator else { return }
        }
        // With the resolves it shares a cycle with, if any: their blocks run together, in the
        // order the factories finished, and then everything is published.
        try BuildCoordinator.shared.finish(self, on: thread)
    }

    /// Ends a failed top-level resolve: releases what it was building, unbinds the context,
    /// and returns the error to throw.
    func endTopLevel(on thread: ThreadState, failure error: any Error) -> any Error {
        defer { unbind(from: thread) }
        return fail(error)
    }

    private func unbind(from thread: ThreadState) {
        thread.context = nil
        reset()
        // A context that took part in cross-thread coordination may still be referenced by its
        // group's other members or by waiters; only one that no other can reach is reused.
        guard usedCoordinator else { return }
        guard isRecyclable else {
            // Released later, by the thread's next top-level resolve: this method is still
            // running on it, and its callers need not hold it.
            thread.retireOwnContext()
            return
        }
        // No other thread can reach it (see `BuildCoordinator.finish`), so no lock is needed.
        usedCoordinator = false
        isRecyclable = false
        isDone = false
        if !waitPath.isEmpty { waitPath = [] }
    }

    /// Breaks the reference cycle between a reused context and its group of one, when its
    /// thread exits (no other thread can reach either).
    func dropGroup() { group = nil }

    /// Lets go of `retiredSlots`, one at a time: a slot's `deinit` may free an instance whose
    /// own `deinit` resolves, and may retire more slots here meanwhile.
    func releaseRetiredSlots() {
        while retiredSlots.popLast() != nil {}
    }

    /// True when instances built by this resolve have `onResolved` blocks still to run.
    var hasPendingBlocks: Bool { !pending.isEmpty }

    static func resolve<T>(_ key: Key, as type: T.Type, from start: Container, arguments: Arguments?) throws -> T {
        try withContext { try $0.resolve(key, as: type, from: start, arguments: arguments) }
    }

    /// Resolves `entry`, the registration a lookup from `start` finds for its own key; the
    /// memo found it for `T`, its own type. A `perContainer` registration with no observer to
    /// tell (a request scope's first read of its request-scoped service) goes straight to its
    /// slot, without `produce`'s dispatch on the lifetime.
    static func resolve<T>(found entry: AnyEntry, as type: T.Type, from start: Container) throws -> T {
        try withContext { context in
            context.noteTopLevelStart(start)
            let request = Request(key: entry.key, start: start, arguments: nil)
            guard entry.lifetime == .perContainer, context.scope?.observer == nil else {
                return try context.produce(entry, request, as: T.self)
            }
            // The top-level request itself (no frame below it): its instance, of the type asked
            // for, is all this resolve returns.
            if context.stack.isEmpty { context.endsWithTopLevelBuild = true }
            return try unsafeDowncast(entry, to: Entry<T>.self).perContainerInstance(request, in: context)
        }
    }

    static func resolveIfRegistered<T>(_ key: Key, as type: T.Type, from start: Container) throws -> T? {
        do {
            return try withContext { context in
                // One lookup decides: a registration removed meanwhile on another thread is
                // either found (and built) or not registered, never found and then missing.
                try context.resolve(key, as: type, from: start, arguments: nil) { _ in
                    // Registered for the type and tag with other arguments is not "nothing".
                    let missing = context.missingError(key, from: start)
                    if case .argumentMismatch = missing.kind { throw missing }
                    throw NothingRegistered()
                }
            }
        } catch is NothingRegistered {
            return nil
        }
    }

    static func resolveAll<T>(_ type: T.Type, from start: Container) throws -> [T] {
        try withContext { context in
            var seen: Set<Key> = []
            // One instance per registration, even when it answers for `T` under several tags.
            var included: Set<ObjectIdentifier> = []
            var results: [T] = []
            for container in start.lookupOrder() {
                // Only `T`'s registrations: the others stay records if they are.
                let candidates = container.registrationsInOrder(scope: context.scope) {
                    $0.type == T.self && $0.arguments.isEmpty
                }
                for (key, entry) in candidates where seen.insert(key).inserted {
                    guard included.insert(ObjectIdentifier(entry)).inserted else { continue }
                    let request = Request(key: key, start: start, arguments: nil)
                    results.append(try context.produce(entry, request, as: T.self))
                }
            }
            return results
        }
    }

    // MARK: Resolving within the context

    func resolve<T>(_ key: Key, as type: T.Type, from start: Container, arguments: Arguments?) throws -> T {
        try resolve(key, as: type, from: start, arguments: arguments) { throw missingError($0, from: start) }
    }

    /// `resolve`, calling `ifMissing` with the key looked up last when nothing answers.
    func resolve<T>(
        _ key: Key, as type: T.Type, from start: Container, arguments: Arguments?, ifMissing: (Key) throws -> T
    ) throws -> T {
        noteTopLevelStart(start)
        if let entry = start.lookup(key, scope: scope) {
            return try produce(entry, Request(key: key, start: start, arguments: arguments), as: T.self)
        }
        // Optional<Wrapped> with nothing registered for the optional itself resolves Wrapped.
        if let optional = T.self as? any OptionalResolvable.Type {
            let wrappedKey = Key(optional.wrappedType, tag: key.tag, arguments: key.arguments)
            guard let entry = start.lookup(wrappedKey, scope: scope) else { return try ifMissing(wrappedKey) }
            let request = Request(key: wrappedKey, start: start, arguments: arguments)
            let value = try produceAny(entry, request)
            guard let wrapped = optional.wrap(value) else { throw error(.typeMismatch, wrappedKey) }
            return wrapped as! T
        }
        return try ifMissing(key)
    }

    private func produce<T>(_ entry: AnyEntry, _ request: Request, as type: T.Type) throws -> T {
        guard let observer = scope?.observer else { return try entry.produce(request, as: T.self, in: self) }
        return try observing(entry, request, observer) { try entry.produce(request, as: T.self, in: self) }
    }

    private func produceAny(_ entry: AnyEntry, _ request: Request) throws -> Any {
        guard let observer = scope?.observer else { return try entry.produceAny(request, in: self) }
        return try observing(entry, request, observer) { try entry.produceAny(request, in: self) }
    }

    /// Runs `body` and tells `observer` what it did. A factory that ran for this request is
    /// the last one to return before the request does, so "new" is exact.
    private func observing<R>(
        _ entry: AnyEntry, _ request: Request, _ observer: any ResolutionObserver, _ body: () throws -> R
    ) throws -> R {
        let dependent = stack.last?.entry ?? nil
        let depth = stack.count
        let clock = ContinuousClock()
        let started = clock.now
        lastConstructed = nil
        let value = try body()
        let isNew = lastConstructed == ObjectIdentifier(entry) && lastConstructedDepth == depth
        observer.resolved(
            ResolutionEvent(
                key: request.key, entry: entry, dependent: dependent, start: request.start, isNew: isNew,
                duration: clock.now - started, depth: depth))
        return value
    }

    /// Runs a factory for a new instance, with a frame on the stack, and queues its blocks.
    func construct<T>(_ entry: Entry<T>, _ request: Request, root: Container, identity: Identity? = nil) throws -> T {
        // The frame keeps the requested key only when it is not the entry's own (a forwarded
        // type): copying a key costs a retain of its tag and of its argument types.
        let requested: Key? = request.key == entry.key ? nil : request.key
        try enterConstruction(entry, key: requested, identity: identity)
        let value: T
        do {
            value = try entry.make(Resolver(container: root), request.arguments)
        } catch {
            throw failConstruction(request.key, error)
        }
        leaveConstruction(entry, key: request.key, root: root, value: value)
        return value
    }

    /// Pushes the frame of a new instance of `entry`. Throws `.circularDependency` when the
    /// same uncached identity is already being built.
    /// `key` is the key as requested, `nil` when it is the entry's own (no copy to make).
    func enterConstruction(_ entry: AnyEntry, key requested: Key?, identity: Identity?) throws {
        if let identity, !stack.isEmpty, stack.contains(identity) {
            throw cycleError(requested ?? entry.key)
        }
        // The chain since the earlier instance of this entry is all new `unique` instances
        // (the instances whose blocks led here, and every construction between them): each
        // new instance's blocks would create the next one again, without end.
        if !blockLineage.isEmpty, entry.lifetime == .unique,
            let earlier = blockLineage.lastIndex(where: { $0.entry == ObjectIdentifier(entry) }),
            blockLineage[earlier...].allSatisfy({ $0.isUnique }),
            blockLineage[(earlier + 1)...].allSatisfy({ $0.reachedThroughUniqueOnly }),
            onlyNewUniqueInstancesSinceBlock
        {
            let key = requested ?? entry.key
            let chain = blockLineage.map(\.key) + [key]
            throw ResolutionError(
                kind: .circularDependency, key: key.serviceKey, path: chain.map(\.serviceKey),
                suggestions: [
                    "the onResolved blocks of these instances keep creating new unique instances of each other; give one of them a graph or cached lifetime so the cycle closes on an existing instance"
                ])
        }
        stack.push(Frame(requestedKey: requested, entry: entry, identity: identity))
    }

    /// True when every construction in progress since the running block's frame is a new
    /// `unique` instance (and when no block runs).
    private var onlyNewUniqueInstancesSinceBlock: Bool {
        blockFrameDepth < 0 || stack.onlyUniqueConstructions(from: blockFrameDepth)
    }

    /// Pushes the frame of a new instance built from a record stored under `key`
    /// (so: no blocks, and `key` is its own). Throws `.circularDependency` when the same
    /// registration is already being built.
    func enterPlainConstruction(_ key: consuming Key, identity: Identity) throws {
        if !stack.isEmpty, stack.contains(identity) { throw cycleError(key) }
        if recordBlocksSeen == nil { recordBlocksSeen = Container.recordBlocks.load(ordering: .acquiring) }
        stack.push(Frame(requestedKey: key, entry: nil, identity: identity))
    }

    /// Pops the frame of a construction from a record after its factory returned.
    func leavePlainConstruction() {
        stack.pop()
        // Observers, the only readers, never see such a construction (no scope is active).
        lastConstructed = nil
        lastConstructedDepth = stack.count
    }

    /// Pops the frame after the factory returned: records the instance for observers and
    /// queues its `onResolved` blocks (their resolver starts at `root`, like the factory's).
    func leaveConstruction(_ entry: AnyEntry, key: Key, root: Container, value: @autoclosure () -> Any) {
        stack.pop()
        lastConstructed = ObjectIdentifier(entry)
        lastConstructedDepth = stack.count
        if entry.hasOnResolvedBlocks {
            let blocks = entry.onResolvedBlocks
            let instance = value()
            let resolver = Resolver(container: root)
            let sequence = Self.blockSequence.add(1, ordering: .relaxed).newValue
            pending.append(
                Pending(
                    sequence: sequence, key: key, entry: entry, lineage: blockLineage,
                    reachedThroughUniqueOnly: onlyNewUniqueInstancesSinceBlock, ancestors: pathKeys
                ) {
                    for block in blocks { try block(resolver, instance) }
                })
        }
    }

    /// Pops the frame after the factory threw; returns the error to throw: a nested
    /// `ResolutionError` unchanged, anything else as `.factoryFailed` with this frame's path.
    func failConstruction(_ key: Key, _ error: any Error) -> any Error {
        defer { stack.pop() }
        if let failure = error as? ResolutionError { return failure }
        return frameError(.factoryFailed(error), key)
    }

    /// The path of the key being built, from the top-level request down: the stack's keys,
    /// after the path of the instance whose block is running, if one is.
    var pathKeys: [Key] { blockPath.isEmpty ? stack.keys : blockPath + stack.keys }

    /// Where this resolve holds the `graph` instance of `entry` for a request that starts at
    /// `start`, if it does: the one built for requests from there. A block's own request, when
    /// there is none, gets the oldest instance of the registration this resolve built from
    /// anywhere: every instance a resolve built is visible to its blocks, which is how a
    /// property-injection cycle closes on the instance the resolve returns.
    func graphInstancePosition(of entry: ObjectIdentifier, from start: ObjectIdentifier) -> Int? {
        if graph.isEmpty { return nil }
        if let position = graph.position(of: GraphKey(entry: entry, start: start)) { return position }
        guard stack.count == blockFrameDepth else { return nil }
        return graph.firstPosition { $0.entry == entry }
    }

    /// The boxed `graph` instance at `position` (from `graphInstancePosition`): a
    /// `StrongBox<T>` of its entry's `T`.
    func graphInstanceBox(at position: Int) -> AnyObject { graph.value(at: position) }

    /// Records a new `graph` instance of `entry` built for requests that start at `start`,
    /// boxed in a `StrongBox<T>` of its entry's `T`, for the rest of this resolve.
    func storeGraphInstance(of entry: ObjectIdentifier, from start: ObjectIdentifier, box: AnyObject) {
        graph.set(box, for: GraphKey(entry: entry, start: start))
    }

    func graphInstance<T>(_ entry: Entry<T>, _ request: Request) throws -> T {
        let identity = Identity(entry)
        // Instances resolved with runtime arguments are never shared.
        if request.arguments != nil { return try construct(entry, request, root: request.start, identity: identity) }
        let start = ObjectIdentifier(request.start)
        if let existing = graphInstancePosition(of: ObjectIdentifier(entry), from: start) {
            // Not `as! StrongBox<T>`: naming the type here would look up its metadata.
            return (reinterpret(graph.value(at: existing)) as StrongBox<T>).read()
        }
        let value = try construct(entry, request, root: request.start, identity: identity)
        storeGraphInstance(of: ObjectIdentifier(entry), from: start, box: entry.makeBox(value))
        return value
    }

    func uniqueInstance<T>(_ entry: Entry<T>, _ request: Request) throws -> T {
        let identity = Identity(entry)
        return try construct(entry, request, root: request.start, identity: identity)
    }

    /// The instance of a cached lifetime: published, being built by this resolve (or by one
    /// that shares a cycle with it), or built now. Waits while another thread builds it.
    func cachedInstance<T>(_ entry: Entry<T>, slot: Slot<T>, _ request: Request, root: Container) throws -> T {
        // No `T?` here: in this unspecialized code, each would look up `Optional<T>`'s metadata.
        if slot.isWeak {
            if let object = slot.publishedObject() { return object as! T }
        } else if let box = slot.publishedBox() {
            return box.read()
        }
        return try buildCachedInstance(entry, slot: slot, request, root: root)
    }

    private func buildCachedInstance<T>(_ entry: Entry<T>, slot: Slot<T>, _ request: Request, root: Container)
        throws -> T
    {
        if let value = try BuildCoordinator.shared.acquire(slot, for: self, key: request.key) { return value as! T }
        return try buildOwnedInstance(entry, slot: slot, request, root: root)
    }

    /// Builds the instance of a slot this resolve owns (acquired, or claimed when the slot was
    /// made: `BuildCoordinator.claimFresh`) and hands it to the coordinator to publish.
    func buildOwnedInstance<T>(_ entry: Entry<T>, slot: Slot<T>, _ request: Request, root: Container) throws -> T {
        let value: T
        do {
            value = try construct(entry, request, root: root)
        } catch {
            BuildCoordinator.shared.abandon(slot, by: self)
            throw error
        }
        guard let box = slot.makeBox(value) else {
            // A value type in a weak slot cannot be held weakly: it behaves as `unique`, so the
            // slot is given up and the next request, in this resolve too, builds a new value.
            BuildCoordinator.shared.abandon(slot, by: self)
            return value
        }
        // A weak slot's box holds its instance weakly: the instance is kept apart until published.
        let object = slot.isWeak ? (reinterpret(box) as WeakBox).object : nil
        // The top-level request's own build may be the resolve's last act.
        let isLastAct = endsWithTopLevelBuild && stack.isEmpty
        BuildCoordinator.shared.built(slot, box: box, keeping: object, by: self, isLastAct: isLastAct)
        return value
    }

    /// Runs the `onResolved` blocks of new instances, oldest first, including those of
    /// instances that blocks themselves create.
    func runPendingBlocks() throws {
        guard !pending.isEmpty else { return }
        var index = 0
        while index < pending.count {
            let item = pending[index]
            index += 1
            try run(item)
        }
        pending.removeAll()
    }

    /// Hands over the queued blocks (to the thread running a group's blocks).
    func takePending() -> [Pending] {
        defer { pending.removeAll() }
        return pending
    }

    /// Runs one queued block set with its frame on the stack. Call on a thread bound to this
    /// context.
    func run(_ item: Pending) throws {
        stack.push(Frame(requestedKey: item.key, entry: item.entry, identity: nil))
        blockLineage =
            item.lineage + [
                LineageLink(
                    entry: ObjectIdentifier(item.entry), key: item.key, isUnique: item.entry.lifetime == .unique,
                    reachedThroughUniqueOnly: item.reachedThroughUniqueOnly)
            ]
        let outerPath = blockPath
        let outerDepth = blockFrameDepth
        blockPath = item.ancestors
        blockFrameDepth = stack.count
        defer {
            stack.pop()
            blockLineage = []
            blockPath = outerPath
            blockFrameDepth = outerDepth
        }
        do {
            try item.run()
        } catch let failure as ResolutionError {
            throw failure
        } catch {
            throw frameError(.factoryFailed(error), item.key)
        }
    }

    /// Releases what this resolve was building; returns the error to throw.
    private func fail(_ error: any Error) -> any Error {
        guard usedCoordinator else { return error }
        BuildCoordinator.shared.fail(self, with: error)
        return error
    }

    // MARK: Errors

    /// An error about `key` requested from the current frame: the path is the stack plus `key`.
    func error(_ kind: ResolutionError.Kind, _ key: Key, searched: [String] = [], suggestions: [String] = [])
        -> ResolutionError
    {
        ResolutionError(
            kind: kind, key: key.serviceKey, path: (pathKeys + [key]).map(\.serviceKey),
            searched: searched, suggestions: suggestions)
    }

    /// The constructor-cycle error for `key` requested from the current frame.
    func cycleError(_ key: Key) -> ResolutionError { Diagnosis.cycleError(key, path: pathKeys + [key]) }

    /// An error about the key of the innermost frame (its factory or block failed).
    func frameError(_ kind: ResolutionError.Kind, _ key: Key) -> ResolutionError {
        ResolutionError(kind: kind, key: key.serviceKey, path: pathKeys.map(\.serviceKey))
    }

    func missingError(_ key: Key, from start: Container) -> ResolutionError {
        let diagnosis = Diagnosis(
            key: key, start: start, scope: scope, topLevelStart: topLevelStart?.takeUnretainedValue())
        return error(diagnosis.kind, key, searched: diagnosis.searched, suggestions: diagnosis.suggestions)
    }

    func ownerGoneError(_ entry: AnyEntry, _ request: Request) -> ResolutionError {
        error(
            .notRegistered, request.key,
            suggestions: [
                "the container '\(entry.ownerName)' that owns this \(entry.lifetime) registration has been deallocated; keep it alive while containers that collaborate with it resolve from it"
            ])
    }
}

/// A group of resolves that share a cycle across threads: they read each other's built but
/// unpublished instances, publish together, and fail together.
/// Only touched with `BuildCoordinator.shared.lock` held (so without dynamic exclusivity checks).
final class ResolutionGroup {
    @exclusivity(unchecked) var members: [ResolutionContext]
    @exclusivity(unchecked) var error: (any Error)?
    @exclusivity(unchecked) var published = false
    /// How many members' threads are running blocks of this group (more than one only after
    /// two groups that were both running blocks merged).
    @exclusivity(unchecked) var runningBlocks = 0
    init(_ member: ResolutionContext) { members = [member] }
}

/// What `resolveIfRegistered` throws to itself when nothing answers the request itself (a
/// missing dependency of what does answer still throws its `ResolutionError`).
private struct NothingRegistered: Error {}

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
