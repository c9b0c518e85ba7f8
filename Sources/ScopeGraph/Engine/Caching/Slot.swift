import Synchronization

/// One cache location of a cached lifetime: a singleton's instance in its owner, a
/// `perContainer` instance in one container, or either of them inside an override scope.
///
/// Two kinds of state live here. The published instance is an immutable box swapped
/// atomically, so reading a cached instance takes no lock; a replaced box is released only
/// after `Reclamation.synchronize()`, once no reader can still be using it. The build state
/// (`SlotBuildState`: who builds, what was built and awaits publication) is guarded by
/// `BuildCoordinator.shared`'s lock, unless one resolve builds the slot alone (`claim`,
/// `UncontendedBuild.swift`).
@usableFromInline
class AnySlot: @unchecked Sendable {
    // @unchecked: `build` is only touched with the coordinator's lock held; `box` is atomic
    // and its boxes immutable (a weak box's reference is thread-safe). The lock also makes
    // every access to `build` exclusive, so its dynamic exclusivity check is off.
    @exclusivity(unchecked) var build = SlotBuildState.idle
    /// Tasks waiting for the build in progress to end (`BuildCoordinator+Readers.swift`).
    /// Guarded by the coordinator's lock, as `build` is.
    @exclusivity(unchecked) var readers: [BuildCoordinator.SlotReader] = []
    /// Who governs the build: nobody, the coordinator (`build`), or one resolve building it
    /// alone without the coordinator (`UncontendedBuild.swift`).
    let claim = Atomic<Int>(0)
    /// While the slot is being built: the index, in its builder's stack, of the frame that
    /// builds it (`ResolutionContext.isBuildingOnBranchPath`). Guarded by the coordinator's
    /// lock, as `build` is.
    @exclusivity(unchecked) var buildFrameIndex = 0
    /// A `weakSingleton` slot: its published box does not keep the instance alive.
    @usableFromInline let isWeak: Bool
    /// The published box (retained, as bits; 0 for none): a `StrongBox<T>`, or a `WeakBox`
    /// when `isWeak`.
    @usableFromInline let box = Atomic<Int>(0)
    private let retirement: Retirement
    /// Where instances published here are recorded for shutdown: the container (or override
    /// scope) this slot caches in. Weak: a slot does not keep its container alive. Under an
    /// engine lock, read it only through `logOwner(keepingIn:)`.
    private weak let logOwner: (any ShutdownLogOwner)?

    init(weak isWeak: Bool, retirement: Retirement, logOwner: (any ShutdownLogOwner)?) {
        assert(MemoryLayout<Int>.size == MemoryLayout<UnsafeRawPointer>.size)
        self.isWeak = isWeak
        self.retirement = retirement
        self.logOwner = logOwner
    }

    deinit {
        let bits = box.load(ordering: .sequentiallyConsistent)
        if bits != 0 { Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The container (or override scope) this slot caches in, if it is alive; the strong
    /// reference the load makes goes to `releases`, released after the lock is: it may be the
    /// container's last one (another thread dropped it meanwhile), and its deinit, which
    /// releases instances whose deinits may resolve, must not run under an engine lock.
    final func logOwner(keepingIn releases: inout DeferredReleases) -> (any ShutdownLogOwner)? {
        guard let owner = logOwner else { return nil }
        releases.append(owner)
        return owner
    }

    /// The published instance, erased.
    func publishedAny() -> Any? { preconditionFailure("AnySlot is abstract: use Slot<T>") }

    /// Publishes `box` for other resolves. Call as the slot's builder (managed, with the
    /// coordinator's lock held, or uncontended); what it replaces goes to `releases`, for
    /// release after unlocking (a deinit may resolve).
    final func publish(_ box: AnyObject, into releases: inout DeferredReleases) {
        if let old = swap(in: Int(bitPattern: Unmanaged.passRetained(box).toOpaque())) { releases.append(old) }
        // Removed meanwhile: `retire` sets the flag before clearing, so either it clears this
        // box or this check sees the flag (both sequentially consistent).
        if retirement.isRetired, let mine = swap(in: 0) { releases.append(mine) }
    }

    /// Whether the box published now is the one the build of `sequence` made (a box's
    /// sequence is its identity: never reused, unlike an address). Reads without retaining, so
    /// it may be called under a lock. Call only inside a `Reclamation` read.
    final func publishes(sequence: Int) -> Bool {
        let bits = box.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return false }
        // Invariant: a published box stays alive until the read ends (`swap`).
        return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef {
            PublishedBox.sequence(of: $0) == sequence
        }
    }

    /// The published box, retained. Call only inside a `Reclamation` read.
    final func publishedBox() -> AnyObject? {
        let bits = box.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return nil }
        // Invariant: a published box stays alive until the read ends (`swap`).
        return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// Drops the published instance (released here: call without locks held).
    final func clear() { _ = swap(in: 0) }

    /// Publishes `bits` (a retained box; 0 for none) and returns the previous box once no
    /// reader can still use it.
    private func swap(in bits: Int) -> AnyObject? {
        let old = box.exchange(bits, ordering: .sequentiallyConsistent)
        guard old != 0 else { return nil }
        Reclamation.synchronize()
        return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
    }
}

/// A typed slot: reading it needs no lock and, for strong lifetimes, no dynamic cast.
@usableFromInline
final class Slot<T>: AnySlot, @unchecked Sendable {
    // @unchecked: see AnySlot.

    /// `StrongBox<T>`, looked up once per registration (`Entry`): unspecialized generic code
    /// that names `StrongBox<T>` pays a runtime metadata lookup at every use.
    private let boxType: StrongBox<T>.Type

    init(weak isWeak: Bool, retirement: Retirement, logOwner: (any ShutdownLogOwner)?, boxType: StrongBox<T>.Type) {
        self.boxType = boxType
        super.init(weak: isWeak, retirement: retirement, logOwner: logOwner)
    }

    /// The published instance. Call only inside a `Reclamation` read.
    @inlinable
    func readPublished() -> T? {
        let bits = box.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return nil }
        // Invariant: this slot only ever publishes boxes made by `makeBox`, so a `WeakBox`
        // when weak and a `StrongBox<T>` otherwise; asserted in debug builds.
        let raw = UnsafeRawPointer(bitPattern: bits)!
        return Unmanaged<AnyObject>.fromOpaque(raw)._withUnsafeGuaranteedRef { object in
            if isWeak {
                assert(object is WeakBox, "ScopeGraph: a weak slot of \(T.self) holds a \(type(of: object))")
                // Checked: a weak slot only publishes instances of `T` (`makeBox`).
                return unsafeDowncast(object, to: WeakBox.self).object.map { $0 as! T }
            }
            assert(object is StrongBox<T>, "ScopeGraph: a slot of \(T.self) holds a \(type(of: object))")
            return unsafeDowncast(object, to: StrongBox<T>.self).value
        }
    }

    /// The published instance handed to `found`, or else `orElse()`'s result, outside a
    /// protected read. No `T?`: in unspecialized callers one costs a metadata lookup per call
    /// (measured: about 250 instructions); this takes a retain and a release of the box instead.
    func withPublished<R>(_ found: (T) throws -> R, orElse: () throws -> R) rethrows -> R {
        guard box.load(ordering: .relaxed) != 0, let box = Reclamation.read({ publishedBox() }) else {
            return try orElse()
        }
        return try value(in: box, found, orElse: orElse)
    }

    /// The published instance, or else `make()`'s (`withPublished`).
    func published(orElse make: () throws -> T) rethrows -> T { try withPublished({ $0 }, orElse: make) }

    /// Hands the published instance to `deliver`; false when there is none (`withPublished`).
    func deliverPublished(to deliver: (T) -> Void) -> Bool {
        withPublished(
            { value in
                deliver(value)
                return true
            }, orElse: { false })
    }

    /// The published instance, as `Any` (`withPublished`).
    override func publishedAny() -> Any? { withPublished({ $0 }, orElse: { nil }) }

    /// The instance in `box`, one this slot published, handed to `found`; `orElse()`'s result
    /// when a weak slot's instance is gone.
    private func value<R>(in box: AnyObject, _ found: (T) throws -> R, orElse: () throws -> R) rethrows -> R {
        guard isWeak else {
            // Invariant: as in `readPublished`, a strong slot publishes `StrongBox<T>`s (a checked
            // cast would look `StrongBox<T>` up at every call).
            assert(box is StrongBox<T>, "ScopeGraph: a slot of \(T.self) holds a \(type(of: box))")
            return try found(unsafeDowncast(box, to: StrongBox<T>.self).value)
        }
        // Checked: a weak slot's boxes are `WeakBox`es of `T` instances (`makeBox`).
        guard let object = (box as! WeakBox).object else { return try orElse() }
        return try found(object as! T)
    }

    /// The box that publishes `value`, made by the build of `sequence`. `nil` for a value
    /// type in a weak slot: it cannot be held weakly, so it behaves as `unique` (nothing is
    /// kept).
    func makeBox(_ value: T, sequence: Int) -> (box: AnyObject, object: AnyObject?)? {
        guard isWeak else { return (boxType.init(value, sequence: sequence), nil) }
        let any: Any = value
        guard type(of: any) is AnyClass else { return nil }
        let object = any as AnyObject
        return (WeakBox(object, sequence: sequence), object)
    }
}

/// What a slot publishes: an instance's box, which knows the build that made it. The
/// build's sequence (`ResolutionContext.buildSequence`: process-wide, never reused) is the
/// box's identity for shutdown records (`ShutdownLog.Record`), which therefore hold no
/// reference to it.
@usableFromInline
class PublishedBox {
    /// When the instance's factory returned, in process-wide order: the shutdown order,
    /// reversed.
    let sequence: Int
    init(sequence: Int) { self.sequence = sequence }

    /// The sequence of `box`, a box a slot published.
    static func sequence(of box: AnyObject) -> Int {
        // Invariant: slots publish only `PublishedBox`es (`Slot.makeBox`).
        assert(box is PublishedBox, "ScopeGraph: a slot publishes a \(type(of: box))")
        return unsafeDowncast(box, to: PublishedBox.self).sequence
    }
}

/// The published instance of a strong lifetime; immutable.
@usableFromInline
final class StrongBox<T>: PublishedBox {
    @usableFromInline let value: T
    init(_ value: T, sequence: Int) {
        self.value = value
        super.init(sequence: sequence)
    }
}

/// The published instance of a `weakSingleton`; the reference is the only state.
@usableFromInline
final class WeakBox: PublishedBox {
    @usableFromInline weak var object: AnyObject?
    init(_ object: AnyObject, sequence: Int) {
        self.object = object
        super.init(sequence: sequence)
    }
}
