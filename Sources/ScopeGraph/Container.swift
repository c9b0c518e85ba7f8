import Synchronization

/// A dependency-injection container: a node in a tree of containers, with one-way
/// collaboration links to siblings.
///
/// A lookup starting at a container visits its own registrations, then its collaborators in
/// the order they were linked, then its parent, and never visits a container twice. The first
/// registration found answers.
///
/// ```swift
/// let app = Container(name: "app")
/// app.register(Logger.self, lifetime: .singleton) { _ in ConsoleLogger() }
///
/// let checkout = app.makeChild(name: "checkout")
/// checkout.register(Checkout.self) { r in Checkout(logger: try r.resolve()) }
///
/// let flow = try checkout.resolve(Checkout.self)
/// ```
///
/// A child keeps its parent alive; a parent tracks its children weakly; a container never keeps
/// its collaborators alive. Every operation is safe from any thread.
public final class Container: Sendable {
    /// The container's name, used in errors, descriptions and graphs.
    public let name: String
    /// The parent, or `nil` for a root. A child keeps its parent alive.
    public let parent: Container?
    /// `parent`, unretained, for the cached-read probe, which must not touch reference counts
    /// (a container is weakly referenced, so its count lives in a side table and every retain
    /// takes the slow path). Valid as long as this container lives: `parent` keeps it alive.
    let parentReference: Unmanaged<Container>?
    /// Process-wide and never reused: what this container is told apart by in lists that may
    /// outlive it (its parent's children, other containers' links).
    let serial: UInt64

    /// Registrations, links, children, pending lookups and `perContainer` instances, behind
    /// this container's lock. No user code runs inside it.
    private let state = Locked(State())
    /// The memo snapshot (a retained `MemoSnapshot`, as bits; 0 for none), read without locks
    /// by lookups. Replaced only with this container's lock held.
    let memo = Atomic<Int>(0)
    /// True while this container has no registrations and no collaboration links, so that its
    /// lookups are exactly its parent's: it then reads its parent's memo instead of building
    /// its own (a request-scope child costs no lookup walks).
    let isTransparent = Atomic<Bool>(true)
    /// The link this container's registrations share, made by the first registration.
    let lazyOwnerLink = LazyReference<OwnerLink>()
    /// The cached instances with `onShutdown` hooks, made by the first one.
    let lazyShutdownLog = LazyReference<ShutdownLog>()
    /// Set when `shutdown()` of this container begins (`isShutDown` reads its ancestors' too).
    let shutDownFlag = Atomic<Bool>(false)
    /// Set when another container first links to this one, so that a container nobody linked
    /// to (a request scope) frees without looking for containers to tell.
    private let hasHadDependents = Atomic<Bool>(false)

    private static let serials = Atomic<UInt64>(0)

    /// Runs `body` with this container's state, under its lock. No user code may run inside
    /// (a factory or block that resolves would take the lock again).
    func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try state.withLock { state in try body(&state) }
    }

    struct State {
        var registrations = [Key: Registered]()
        var collaborators: [WeakContainer] = []
        /// Containers that collaborate with this one (reverse links), for cache invalidation.
        var dependents: [WeakContainer] = []
        var children = ChildList()
        /// Lookups that started here and are not yet in the memo snapshot.
        var pendingLookups = [Key: MemoRecord]()
        var memoCount = 0
        var generation: UInt64 = 0
        /// `perContainer` instances whose top-level resolve started here, by the serial of
        /// their registration (never reused: a registration freed meanwhile cannot be taken
        /// for another one).
        var perContainer = PerContainerSlots()
        /// This container's one shutdown, started by the first call of `shutdown()`. In the
        /// state rather than behind a lock of its own: a lock is two allocations per container.
        var shutdownProgress = ShutdownProgress.notStarted
    }

    /// A registration in the table, and its place in registration order.
    struct Registered: Sendable {
        let entry: AnyEntry
        /// When it was stored under this key (process-wide, see `Container.nextSequence`): its
        /// registration, or for a key it forwards, the `implements` call.
        let sequence: Int
    }

    /// The process-wide default container, named `"shared"`.
    public static let shared = Container(name: "shared")

    /// The container property wrappers use when none is given: `shared` unless a task binds
    /// another with `Container.$current.withValue(container) { … }`.
    @TaskLocal public static var current: Container = .shared

    /// Creates a root container.
    /// - Parameter name: The name used in errors, descriptions and graphs.
    public init(name: String = "root") {
        self.name = name
        self.parent = nil
        self.parentReference = nil
        self.serial = Self.serials.wrappingAdd(1, ordering: .relaxed).newValue
    }

    private init(name: String, parent: Container) {
        self.name = name
        self.parent = parent
        self.parentReference = Unmanaged.passUnretained(parent)
        self.serial = Self.serials.wrappingAdd(1, ordering: .relaxed).newValue
    }

    #if DEBUG
    /// For the debug check of a request's unretained starting container (`Request.start`).
    let liveness = DebugLiveness()
    #endif

    deinit {
        #if DEBUG
        liveness.end()
        // Its registrations release their instances here, whose deinits may resolve: that
        // must not happen under an engine lock (it would take the lock again).
        assert(
            LockChecks.heldByThisThread == 0,
            "ScopeGraph: container '\(name)' freed while this thread holds an engine lock; what a critical section lets go of must be released after unlocking"
        )
        #endif
        let bits = memo.load(ordering: .sequentiallyConsistent)
        if bits != 0 {
            // Invariant: `memo` holds a retained snapshot (see `swapMemo`).
            Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
        }
        // The registrations go with their owner: retiring them drops the instances cached for
        // them here and in other containers (`perContainer`), even while a kept `Registration`
        // handle keeps an entry alive.
        // And the registrations it held `perContainer` instances of forget it (their lists of
        // holders would otherwise keep its link until they prune it).
        let (owned, held) = withState { state in
            (state.registrations.values.map(\.entry).filter { $0.owner == nil }, state.perContainer.entries)
        }
        for entry in owned { entry.retire() }
        let serial = self.serial
        held.first?.forgetPerContainerHolder(serial: serial)
        for entry in held.rest { entry.forgetPerContainerHolder(serial: serial) }
        parent?.withState { state in state.children.remove(serial: serial) }
        // Containers that collaborated with this one must forget lookups that answered from it.
        guard hasHadDependents.load(ordering: .acquiring) else { return }
        let dependents = withState { $0.dependents }
        for dependent in dependents { dependent.value?.invalidateLookups() }
    }

    /// Creates a child container. The child keeps this container alive; this container tracks
    /// the child weakly, so dropping the child frees it with its registrations and caches.
    /// - Parameter name: The child's name.
    /// - Returns: The new child.
    public func makeChild(name: String) -> Container {
        let child = Container(name: name, parent: self)
        // No pruning here: a child removes itself from this list when it is freed.
        withState { state in state.children.add(child) }
        return child
    }

    /// The live children, in creation order.
    public var children: [Container] { withState { $0.children.live } }

    /// The live collaborators, in link order.
    public var collaborators: [Container] { withState { $0.collaborators.compactMap(\.value) } }

    /// Links this container to others: lookups from this container visit them (after its own
    /// registrations, before its parent), in link order. One-way: lookups from `others` do not
    /// visit this container. A container does not keep its collaborators alive. Linking a
    /// container with itself, or the same pair twice, is ignored; links may form cycles.
    ///
    /// ```swift
    /// cart.collaborate(with: catalog, payments)
    /// ```
    /// - Parameter others: The containers to visit, in order.
    public func collaborate(with others: Container...) { collaborate(with: others) }

    /// Links this container to others; see `collaborate(with:)`.
    /// - Parameter others: The containers to visit, in order.
    public func collaborate(with others: [Container]) {
        for other in others where other !== self {
            // The live collaborators come back to be released here, after the lock.
            let (added, _) = withState { state -> (Bool, [Container]) in
                let live = state.collaborators.removeGone()
                if state.collaborators.contains(where: { $0.serial == other.serial }) { return (false, live) }
                state.collaborators.append(WeakContainer(other))
                return (true, live)
            }
            guard added else { continue }
            other.addDependent(self)
            invalidateLookups()
        }
    }

    /// Records that `dependent` links to this container, so that this container's changes and
    /// its end invalidate `dependent`'s lookups.
    func addDependent(_ dependent: Container) {
        // The live dependents come back to be released here, after the lock.
        _ = withState { state -> [Container] in
            let live = state.dependents.removeGone()
            state.dependents.append(WeakContainer(dependent))
            hasHadDependents.store(true, ordering: .releasing)
            return live
        }
    }

    /// The root of this container's tree.
    var root: Container {
        var node = self
        while let parent = node.parent { node = parent }
        return node
    }
}
