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
    /// `parent`, unretained, for walks on the resolve path that must not touch reference
    /// counts (a container's `parent` keeps it alive).
    let parentReference: Unmanaged<Container>?

    /// The lock of `lockedState` (see `LockWord`): in the container itself, so that a
    /// container is one allocation and taking its lock follows no pointer.
    private let stateWord = Atomic<UInt32>(0)
    /// Registrations, links, children and pending lookups: reachable only through `withState`.
    /// No dynamic exclusivity check: the lock already makes every access exclusive.
    @exclusivity(unchecked) private nonisolated(unsafe) var lockedState = State()
    /// The memo snapshot (a retained `MemoSnapshot`, as bits; 0 for none), read without locks
    /// by the cached-resolve fast path. Replaced only with this container's lock held (inside
    /// `withState`).
    @usableFromInline let memo = Atomic<Int>(0)
    /// True while this container has no registrations and no collaboration links, so that
    /// its lookups are exactly its parent's: it then reads its parent's memo instead of
    /// building its own (a request-scope child costs no lookup walks). Updated with every
    /// invalidation of this container's lookups, which follows every such change.
    let isTransparent = Atomic<Bool>(true)
    /// The retained `OwnerLink` this container's registrations share, as bits (0 until the
    /// first registration makes it).
    let ownerLinkBits = Atomic<Int>(0)
    /// Set (with the lock held) when another container first links to this one, so that a
    /// container nobody ever linked to (a request scope) frees without taking its lock to look
    /// for containers to tell.
    private let hasHadDependents = Atomic<Bool>(false)
    /// Whether a singleton, weak or eager registration was ever stored here: only then has
    /// `deinit` cached instances to drop.
    let hasHadOwnerRootedRegistrations = Atomic<Bool>(false)

    /// Runs `body` with this container's state, under its lock. No user code may run inside
    /// (a factory or block that resolves would take the lock again).
    @inline(__always)
    func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        LockWord.lock(stateWord, of: self)
        defer { LockWord.unlock(stateWord, of: self) }
        return try body(&lockedState)
    }

    /// True while this container's lock is taken and a thread may be sleeping for it (for
    /// tests).
    var isStateLockWanted: Bool { LockWord.isWanted(stateWord) }

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
        /// `perContainer` instances whose top-level resolve started here, by entry.
        var perContainer = SmallMap<ObjectIdentifier, AnySlot>()
    }

    /// A registration in the table: an entry, or a record that becomes one when needed (see
    /// PlainRegistration.swift), and its place in registration order.
    struct Registered {
        /// The entry; for a record, its factory's context (`nil` when it captures nothing).
        private(set) var object: AnyObject?
        /// A record's factory function; `nil` for an entry.
        private(set) var plainFunction: UnsafeRawPointer?
        /// The sequence, shifted left by one, and whether a record was looked up (bit 0): one
        /// word, so that a registration takes three in the table.
        private var bits: Int

        init(entry: AnyEntry, sequence: Int) {
            object = entry
            bits = sequence << 1
        }

        init(plain factory: PlainFactory, sequence: Int) {
            object = factory.context
            plainFunction = factory.function
            bits = sequence << 1
        }

        /// The place in registration order (process-wide, see `Container.sequences`).
        var sequence: Int { bits >> 1 }

        /// Set by a record's first lookup (see `AnyEntry.noteLookedUp`).
        var lookedUp: Bool {
            get { bits & 1 != 0 }
            set { bits = newValue ? bits | 1 : bits & ~1 }
        }

        /// The entry, when the registration has one (not a record).
        var entry: AnyEntry? {
            plainFunction == nil ? unsafeDowncast(object.unsafelyUnwrapped, to: AnyEntry.self) : nil
        }

        /// A record's factory.
        var plainFactory: PlainFactory { PlainFactory(function: plainFunction.unsafelyUnwrapped, context: object) }

        /// What a record, and the entry made from it, is told apart by while being built: odd,
        /// so never the address of an object (see `AnyEntry.identity`), and unique because
        /// sequences are.
        var plainIdentity: UInt { UInt(bitPattern: bits) | 1 }

        /// Replaces the record with the entry made from it.
        mutating func become(_ entry: AnyEntry) {
            object = entry
            plainFunction = nil
        }
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
    }

    private init(name: String, parent: Container) {
        self.name = name
        self.parent = parent
        self.parentReference = Unmanaged.passUnretained(parent)
    }

    deinit {
        let bits = memo.load(ordering: .sequentiallyConsistent)
        if bits != 0 { Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        releaseOwnerLink()
        // A kept `Registration` handle keeps its entry alive, not the instances it cached here:
        // they go with the container, released after the lock.
        if hasHadOwnerRootedRegistrations.load(ordering: .relaxed) {
            let slots = withState { state in state.registrations.values.compactMap { $0.entry?.ownerSlot } }
            for slot in slots { slot.clear() }
        }
        if let parent = parentReference {
            let address = Unmanaged.passUnretained(self).toOpaque()
            // Unretained: this container kept its parent alive until now.
            parent._withUnsafeGuaranteedRef {
                $0.withState { state in
                    state.children.remove(address)
                }
            }
        }
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
                if state.collaborators.contains(where: { $0.id == ObjectIdentifier(other) }) { return (false, live) }
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

extension [WeakContainer] {
    /// Drops the links to containers that are gone and returns the live ones, strongly. Call
    /// with a container's lock held, and let go of the result after unlocking: checking a link
    /// takes a strong reference for a moment, and if the container's other references go at
    /// that moment, releasing it there would run the container's `deinit` under the lock, which
    /// takes locks of its own (its parent's, its dependents').
    mutating func removeGone() -> [Container] {
        var live: [Container] = []
        removeAll { link in
            guard let container = link.value else { return true }
            live.append(container)
            return false
        }
        return live
    }
}

/// A weak reference to a container, with its identity kept for removal after it is gone.
struct WeakContainer: @unchecked Sendable {
    // @unchecked: the weak reference is written once, in init; weak loads are thread-safe.
    weak var value: Container?
    let id: ObjectIdentifier

    init(_ container: Container) {
        value = container
        id = ObjectIdentifier(container)
    }
}
