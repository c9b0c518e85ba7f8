import Synchronization

/// A registration as a container stores it: key, lifetime, owner, and the forwarded keys and
/// `onResolved` blocks added later. `Entry<T>` adds the factory and the cache slot.
@usableFromInline
package class AnyEntry: @unchecked Sendable {
    // @unchecked: the stored properties are immutable after init, except the atomics and
    // `extras`, which is behind its own lock.
    let key: Key
    let lifetime: Lifetime
    /// How the factory may be run: synchronously, awaited, or on the main actor.
    let kind: FactoryKind
    /// Process-wide and never reused (unlike an address): what this registration is told apart
    /// by in tables that may outlive it (a resolve's `graph` instances and frames, the
    /// `perContainer` caches of other containers).
    let serial: UInt64
    /// The owning container (weakly) and its name, shared with its other registrations.
    private let ownerLink: OwnerLink
    /// Set when the registration is removed or replaced (or its owner goes): a build already
    /// running then publishes nothing. Shared with the registration's slots.
    let retirement: Retirement
    /// Set by the first lookup this entry answered from its own container (see
    /// `noteLookedUp`): a key asked for twice is worth memoizing.
    let lookedUp = Atomic<Bool>(false)
    /// How many `onResolved` blocks there are, readable without the lock.
    private let blockCount = Atomic<Int>(0)
    /// Forwarded keys, blocks and `perContainer` holders, made by the first of them: most
    /// registrations never have any.
    private let lazyExtras = LazyReference<ExtrasBox>()

    private struct Extras {
        var forwardKeys: [Key] = []
        var blocks: [@Sendable (Resolver, Any) throws -> Void] = []
        var shutdownHooks: [ShutdownHook] = []
        /// The containers holding a `perContainer` instance of this registration, told to drop
        /// it when the registration is retired.
        var perContainerHolders: [WeakContainer] = []
        /// The length at which `perContainerHolders` is next pruned of containers that are
        /// gone (and of repeats): twice what was left by the last pruning, so that noting a
        /// holder costs amortized constant time however many come and go.
        var pruneHoldersAt = 8
    }

    private static let serials = Atomic<UInt64>(0)

    /// The extras behind their lock, in an object that `lazyExtras` can hold.
    private final class ExtrasBox: Sendable {
        let state = Locked(Extras())
        func withLock<R>(_ body: (inout Extras) -> R) -> R { state.withLock(body) }
    }

    /// The extras, made on first use (once: a thread that loses the race drops its own).
    private var extras: ExtrasBox {
        if let existing = lazyExtras.load() { return existing }
        return lazyExtras.storeIfNil(ExtrasBox())
    }

    #if DEBUG
    /// For the debug check of unretained references to a registration
    /// (`ThreadState.pendingEntry`).
    let liveness = DebugLiveness()
    deinit { liveness.end() }
    #endif

    init(key: Key, lifetime: Lifetime, owner: Container, retirement: Retirement, kind: FactoryKind) {
        self.key = key
        self.kind = kind
        self.retirement = retirement
        self.lifetime = lifetime
        self.ownerLink = owner.ownerLink
        self.serial = Self.serials.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The container that owns this registration, or `nil` once it is deallocated.
    var owner: Container? { ownerLink.container }
    /// The owning container's name, known after it is deallocated too.
    var ownerName: String { ownerLink.name }

    /// The registered type (the `T` of `register`).
    var valueType: Any.Type { key.type }

    // MARK: Forwarded keys and blocks

    var forwards: [Key] { lazyExtras.load()?.withLock { $0.forwardKeys } ?? [] }

    func addForward(_ key: Key) {
        extras.withLock { extras in if !extras.forwardKeys.contains(key) { extras.forwardKeys.append(key) } }
    }

    /// Forgets a forwarded key that another registration has taken over.
    func removeForward(_ key: Key) {
        lazyExtras.load()?.withLock { extras in extras.forwardKeys.removeAll { $0 == key } }
    }

    func addErasedBlock(_ block: @escaping @Sendable (Resolver, Any) throws -> Void) {
        extras.withLock { extras in
            extras.blocks.append(block)
            blockCount.store(extras.blocks.count, ordering: .releasing)
        }
    }

    /// An `onShutdown` hook, given the box that published the instance (`StrongBox<T>` or
    /// `WeakBox`), which it reads as its slot does.
    typealias ShutdownHook = @Sendable (AnyObject) async throws -> Void

    /// How many `onShutdown` hooks there are, readable without the lock.
    private let hookCount = Atomic<Int>(0)

    /// Adds a hook; the first one also records the instances already cached for shutdown
    /// (published before, they had nothing to close and were not recorded).
    func addShutdownHook(_ hook: @escaping ShutdownHook) {
        let isFirst = extras.withLock { extras in
            extras.shutdownHooks.append(hook)
            // Sequentially consistent: an uncontended publication stores its box, then loads
            // this (`hasShutdownHooksNow`); `recordCachedInstances` stores this, then loads the
            // box: one of them sees the other.
            hookCount.store(extras.shutdownHooks.count, ordering: .sequentiallyConsistent)
            return extras.shutdownHooks.count == 1
        }
        if isFirst { recordCachedInstances() }
    }

    /// True once an `onShutdown` hook was added; no lock.
    var hasShutdownHooks: Bool { hookCount.load(ordering: .acquiring) != 0 }

    /// `hasShutdownHooks`, loaded after an uncontended publication (see `addShutdownHook`).
    var hasShutdownHooksNow: Bool { hookCount.load(ordering: .sequentiallyConsistent) != 0 }

    /// The `onShutdown` hooks, in the order added.
    var shutdownHooks: [ShutdownHook] {
        hasShutdownHooks ? extras.withLock { $0.shutdownHooks } : []
    }

    /// True once an `onResolved` block was added; no lock.
    var hasOnResolvedBlocks: Bool { blockCount.load(ordering: .acquiring) != 0 }

    /// The `onResolved` blocks, in the order added.
    var onResolvedBlocks: [@Sendable (Resolver, Any) throws -> Void] {
        hasOnResolvedBlocks ? extras.withLock { $0.blocks } : []
    }

    /// The forwarded keys and `onResolved` blocks as they are now, for a snapshot.
    var capturedExtras: CapturedExtras {
        lazyExtras.load()?.withLock { CapturedExtras(forwardKeys: $0.forwardKeys, blocks: $0.blocks) }
            ?? CapturedExtras(forwardKeys: [], blocks: [])
    }

    /// Puts back the forwarded keys and blocks a snapshot captured: `implements` and
    /// `onResolved` calls made since are undone.
    func restoreExtras(_ captured: CapturedExtras) {
        // The blocks undone are released here, after the lock: one may hold the last reference
        // to an object whose deinit resolves.
        let undone = extras.withLock { extras -> [@Sendable (Resolver, Any) throws -> Void] in
            let undone = extras.blocks
            extras.forwardKeys = captured.forwardKeys
            extras.blocks = captured.blocks
            blockCount.store(extras.blocks.count, ordering: .releasing)
            return undone
        }
        _ = undone
    }

    /// What `capturedExtras` returns and `restoreExtras` takes.
    struct CapturedExtras: Sendable {
        let forwardKeys: [Key]
        let blocks: [@Sendable (Resolver, Any) throws -> Void]
    }

    // MARK: Lifecycle

    /// How many links to holders the registration keeps, live or not (for tests).
    var perContainerHolderLinks: Int { lazyExtras.load()?.withLock { $0.perContainerHolders.count } ?? 0 }

    /// Forgets the link to the container with this serial, which is going away
    /// (`Container.deinit`): the list then stays as long as the live holders, and
    /// `notePerContainerHolder` has nothing to prune while they go away in turn.
    func forgetPerContainerHolder(serial: UInt64) {
        lazyExtras.load()?.withLock { extras in
            guard let position = extras.perContainerHolders.firstIndex(where: { $0.serial == serial }) else { return }
            extras.perContainerHolders.swapAt(position, extras.perContainerHolders.count - 1)
            extras.perContainerHolders.removeLast()
        }
    }

    /// Records that `container` holds a `perContainer` instance of this registration, so that
    /// retiring the registration drops it there. Call without any container lock held.
    func notePerContainerHolder(_ container: Container) {
        let live = extras.withLock { extras -> [Container] in
            extras.perContainerHolders.append(WeakContainer(container))
            guard extras.perContainerHolders.count >= extras.pruneHoldersAt else { return [] }
            let live = extras.perContainerHolders.removeGoneAndRepeated()
            extras.pruneHoldersAt = max(8, 2 * live.count)
            return live
        }
        _ = live  // released after the lock
    }

    /// Marks the registration removed or replaced: its slots refuse instances from now on, its
    /// owner's slot and every `perContainer` instance of it are dropped.
    func retire() {
        retirement.retire()
        dropCachedInstances()
    }

    /// The containers that hold a `perContainer` slot of this registration now.
    var perContainerHolders: [Container] {
        lazyExtras.load()?.withLock { $0.perContainerHolders.compactMap(\.value) } ?? []
    }

    /// Drops the instances cached for this registration: its owner's slot and every
    /// `perContainer` instance of it.
    func dropCachedInstances() {
        ownerSlot?.clear()
        let holders =
            lazyExtras.load()?.withLock { extras -> [Container] in
                defer { extras.perContainerHolders = [] }
                return extras.perContainerHolders.compactMap(\.value)
            } ?? []
        for holder in holders { holder.dropPerContainerInstance(of: self) }
    }

    /// Brings a retired registration back (a restored snapshot holds it).
    func reinstate() { retirement.reinstate() }

    // MARK: Typed parts (Entry<T>)

    /// The slot of an owner-rooted lifetime, in the owner; `nil` for the other lifetimes.
    var ownerSlot: AnySlot? { nil }

    /// A fresh, empty slot of the right type, for `perContainer` caches and override scopes.
    /// `logOwner` is where the slot caches: the container, or the override scope.
    func makeSlot(in logOwner: any ShutdownLogOwner) -> AnySlot {
        preconditionFailure("AnyEntry is abstract: use Entry<T>")
    }

    /// The slot a cached lifetime's instance lives in for `request` (`cacheLocation`); `nil`
    /// for `unique` and `graph`, and when the owner is gone.
    func cacheSlot(for request: Request, in context: ResolutionContext) -> AnySlot? {
        preconditionFailure("AnyEntry is abstract: use Entry<T>")
    }

    /// Produces the instance for a request and casts it to the requested type.
    func produce<R>(_ request: Request, as type: R.Type, in context: ResolutionContext) throws -> R {
        preconditionFailure("AnyEntry is abstract: use Entry<T>")
    }

    /// Produces the instance for a request, erased.
    func produceAny(_ request: Request, in context: ResolutionContext) throws -> Any {
        preconditionFailure("AnyEntry is abstract: use Entry<T>")
    }

    /// `produce`, in an async resolve.
    func produceAsync<R>(_ request: Request, as type: R.Type, in context: ResolutionContext) async throws -> R {
        preconditionFailure("AnyEntry is abstract: use Entry<T>")
    }

    /// `produceAny`, in an async resolve.
    func produceAnyAsync(_ request: Request, in context: ResolutionContext) async throws -> Any {
        preconditionFailure("AnyEntry is abstract: use Entry<T>")
    }
}

/// What one resolve asks of an entry.
struct Request: Sendable {
    /// The key as requested (a forwarded type, or the entry's own key).
    let key: Key
    /// Unretained (a retain and a release per request otherwise, on the slow path of an
    /// object that is weakly referenced, as containers are). Invariant: whoever makes a request
    /// holds its starting container for as long as the request is used: the caller of a
    /// resolve holds the container it called, a `Resolver` its own, and a build handed off to a
    /// task of its own holds it in that task (`cachedInstanceAsync`). Debug builds check it
    /// (`DebugLiveness`).
    private let unretainedStart: Unmanaged<Container>
    #if DEBUG
    private let startIdentity: UInt64
    #endif
    /// Runtime arguments, when the key has argument types.
    let arguments: Arguments?

    init(key: Key, start: Container, arguments: Arguments?) {
        self.key = key
        unretainedStart = .passUnretained(start)
        self.arguments = arguments
        #if DEBUG
        startIdentity = start.liveness.current
        #endif
    }

    /// The container the request's lookup started from.
    var start: Container {
        #if DEBUG
        // Read without a retain: the object may be gone.
        assert(
            unretainedStart._withUnsafeGuaranteedRef { $0.liveness.current } == startIdentity,
            "ScopeGraph: a request outlived the container it started from")
        #endif
        return unretainedStart.takeUnretainedValue()
    }
}

/// Set when a registration is removed or replaced, after which a build that was already
/// running publishes nothing. Shared by a registration and all its slots.
final class Retirement: Sendable {
    private let flag = Atomic<Bool>(false)
    var isRetired: Bool { flag.load(ordering: .sequentiallyConsistent) }
    func retire() { flag.store(true, ordering: .sequentiallyConsistent) }
    /// A restored snapshot brings the registration back.
    func reinstate() { flag.store(false, ordering: .sequentiallyConsistent) }
}
