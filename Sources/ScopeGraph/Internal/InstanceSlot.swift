import Synchronization

/// One cache location of a cached lifetime: a singleton's instance in its owner, a
/// `perContainer` instance in one container, or either of them inside an override scope.
///
/// Two kinds of state live here. The published instance is an immutable box swapped
/// atomically, so reading a cached instance takes no lock at all. The build state (who is
/// building, and the built-but-unpublished instance) is guarded by `BuildCoordinator.lock`.
@usableFromInline
class AnySlot: @unchecked Sendable {
    // @unchecked: `builder`, `builtBox` and `builtObject` are only touched with `BuildCoordinator.shared.lock`
    // held; the published box is swapped atomically and read under `Reclamation.read`, and a
    // box is immutable (a weak box's reference is thread-safe) and released only after
    // `Reclamation.synchronize()`.
    @exclusivity(unchecked) var builder: ResolutionContext?
    /// Set when the builder's factory returned: the box ready to publish, which holds the
    /// instance (not yet published). `nil` while the factory runs, or nobody builds.
    @exclusivity(unchecked) var builtBox: AnyObject?
    /// For a weak slot, whose box does not keep its instance: the instance, kept until it is
    /// published.
    @exclusivity(unchecked) var builtObject: AnyObject?
    /// A `weakSingleton` slot: its published box does not keep the instance alive.
    @usableFromInline let isWeak: Bool
    /// The published box (retained, as bits; 0 for none): a `StrongBox<T>`, or a `WeakBox`
    /// when `isWeak`.
    @usableFromInline let box = Atomic<Int>(0)
    private let retirement: Retirement

    init(weak isWeak: Bool, retirement: Retirement) {
        self.isWeak = isWeak
        self.retirement = retirement
    }

    deinit {
        let bits = box.load(ordering: .sequentiallyConsistent)
        if bits != 0 { Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The published instance, erased. Call with the coordinator lock held or not.
    func publishedAny() -> Any? { fatalError("AnySlot is abstract: use Slot<T>") }

    /// The built, unpublished instance, erased. Call with the coordinator lock held, when
    /// `builtBox` is set.
    func builtAny() -> Any { fatalError("AnySlot is abstract: use Slot<T>") }

    /// The published box, retained, or `nil`.
    final func loadBox() -> AnyObject? {
        // An empty slot (a first resolve) has nothing to protect: no announcement, whose full
        // barrier costs more than the rest of the check.
        guard box.load(ordering: .relaxed) != 0 else { return nil }
        return Reclamation.read(ThreadState.current) {
            let bits = box.load(ordering: .sequentiallyConsistent)
            guard bits != 0 else { return nil }
            return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
        }
    }

    /// The published instance of a `weakSingleton`, while it lives.
    final func publishedObject() -> AnyObject? {
        guard let box = loadBox() else { return nil }
        return (reinterpret(box) as WeakBox).object
    }

    /// Publishes `box` (made by `Slot.makeBox`) for other resolves. Call with the coordinator
    /// lock held; what it replaces goes to `graveyard`, for release after unlocking.
    final func publish(_ box: AnyObject?, into graveyard: inout [Any]) {
        guard let box else { return }
        if let old = swap(in: Int(bitPattern: Unmanaged.passRetained(box).toOpaque())) { graveyard.append(old) }
        // Removed meanwhile: `remove` set the flag before clearing, so either it clears this
        // box or this check sees the flag (both sequentially consistent).
        if retirement.isRetired, let mine = swap(in: 0) { graveyard.append(mine) }
    }

    /// Drops the published instance.
    final func clear() { _ = swap(in: 0) }

    /// Publishes `bits` (a retained box; 0 for none) and returns the previous box, once no
    /// reader can still use it; the caller drops it (outside its locks).
    private func swap(in bits: Int) -> AnyObject? {
        let old = box.exchange(bits, ordering: .sequentiallyConsistent)
        guard old != 0 else { return nil }
        Reclamation.synchronize()
        return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
    }
}

/// A typed slot: reading it takes no lock and needs no dynamic cast (for strong lifetimes).
///
/// The published instance lives in an immutable box: a `StrongBox<T>` for strong lifetimes, a
/// `WeakBox` for `weakSingleton`. Neither stores a `T?`, and the box type comes from the entry,
/// so publishing and reading in unspecialized generic code (the general resolve path) look up
/// no generic metadata at run time (`Optional<T>`'s, for one, costs a hash-table probe per use).
@usableFromInline
final class Slot<T>: AnySlot, @unchecked Sendable {
    // @unchecked: see AnySlot; `boxType` is immutable.
    private let boxType: StrongBox<T>.Type

    required init(weak isWeak: Bool, retirement: Retirement, boxType: StrongBox<T>.Type) {
        self.boxType = boxType
        super.init(weak: isWeak, retirement: retirement)
    }

    /// The published instance. Call only inside `Reclamation.read`; for specialized callers.
    @inlinable @inline(__always)
    func readPublished() -> T? {
        let bits = box.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return nil }
        let raw = UnsafeRawPointer(bitPattern: bits)!
        if isWeak { return Unmanaged<WeakBox>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.object.map { $0 as! T } } }
        return Unmanaged<StrongBox<T>>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.value }
    }

    /// The published box of a strong lifetime. Free of `T?`, for unspecialized callers (an
    /// optional class reference needs no metadata; read it with `StrongBox.read()`).
    func publishedBox() -> StrongBox<T>? {
        guard let box = loadBox() else { return nil }
        return reinterpret(box)
    }

    override func publishedAny() -> Any? {
        if isWeak {
            guard let object = publishedObject() else { return nil }
            return object as! T
        }
        guard let box = publishedBox() else { return nil }
        return box.read()
    }

    override func builtAny() -> Any {
        if isWeak { return builtObject! as! T }
        return (reinterpret(builtBox!) as StrongBox<T>).read()
    }

    /// The box that publishes `value`: made here, in the slot's own (generic) code, so that
    /// publishing needs no cast. `nil` for a value type in a weak slot: it cannot be held
    /// weakly, so it behaves as `unique` (nothing is kept).
    func makeBox(_ value: T) -> AnyObject? {
        guard isWeak else { return boxType.init(value) }
        let any: Any = value
        guard Swift.type(of: any) is AnyClass else { return nil }
        return WeakBox(any as AnyObject)
    }
}

/// `object` as a `U`, which the caller knows it is. Unlike `unsafeDowncast(_:to:)` it takes no
/// metatype, so unspecialized generic code that uses it looks up no metadata for `U`.
@inline(__always)
func reinterpret<U: AnyObject>(_ object: AnyObject) -> U {
    Unmanaged<U>.fromOpaque(Unmanaged.passUnretained(object).toOpaque()).takeUnretainedValue()
}

/// The published instance of a strong lifetime; immutable.
@usableFromInline
final class StrongBox<T> {
    @usableFromInline let value: T
    @usableFromInline required init(_ value: T) { self.value = value }

    /// `value`, for unspecialized callers: reading the field from outside would look up this
    /// class's metadata for the field's offset; a method finds it through `self`.
    @inline(never)
    func read() -> T { value }
}

/// The published instance of a `weakSingleton`; the reference is the only state.
@usableFromInline
final class WeakBox {
    @usableFromInline weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

/// Shared by a registration and all its slots: set when the registration is removed or
/// replaced, after which a build that was already running publishes nothing.
final class Retirement: Sendable {
    private let flag = Atomic<Bool>(false)
    var isRetired: Bool { flag.load(ordering: .sequentiallyConsistent) }
    func retire() { flag.store(true, ordering: .sequentiallyConsistent) }
    /// A restored snapshot brings the registration back.
    func reinstate() { flag.store(false, ordering: .sequentiallyConsistent) }
}
