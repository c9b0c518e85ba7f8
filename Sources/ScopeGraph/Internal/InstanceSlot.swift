import Synchronization

/// One cache location of a cached lifetime: a singleton's instance in its owner, a
/// `perContainer` instance in one container, or either of them inside an override scope.
///
/// Two kinds of state live here. The published instance is an immutable box swapped
/// atomically, so reading a cached instance takes no lock at all. The build state (who is
/// building, and the built-but-unpublished instance) is guarded by `BuildCoordinator.lock`.
@usableFromInline
class AnySlot: @unchecked Sendable {
    // @unchecked: `builder` and `phase` are only touched with `BuildCoordinator.shared.lock`
    // held; the published instance lives in the subclass.
    var builder: ResolutionContext?
    var phase: BuildPhase = .constructing

    enum BuildPhase {
        case constructing
        case built(Any)
    }

    /// The published instance, erased. Call with the coordinator lock held or not.
    func publishedAny() -> Any? { fatalError("AnySlot is abstract: use Slot<T>") }
    /// Stores the instance for other resolves. Called with the coordinator lock held; returns
    /// what it replaced, for the caller to release after unlocking.
    func publish(_ value: Any) -> [AnyObject] { fatalError("AnySlot is abstract: use Slot<T>") }
    /// Drops the published instance.
    func clear() { fatalError("AnySlot is abstract: use Slot<T>") }
}

/// A typed slot: reading it takes no lock and needs no dynamic cast (for strong lifetimes).
@usableFromInline
final class Slot<T>: AnySlot, @unchecked Sendable {
    // @unchecked: the published box is swapped atomically and read under `Reclamation.read`;
    // a box is immutable (its weak reference is thread-safe) and released only after
    // `Reclamation.synchronize()`.
    @usableFromInline final class Box {
        @usableFromInline let value: T?
        @usableFromInline weak var object: AnyObject?
        init(value: T?, object: AnyObject?) {
            self.value = value
            self.object = object
        }
    }

    @usableFromInline let isWeak: Bool
    @usableFromInline let box = Atomic<Int>(0)

    private let retirement: Retirement

    init(weak isWeak: Bool, retirement: Retirement) {
        self.isWeak = isWeak
        self.retirement = retirement
    }

    deinit {
        let bits = box.load(ordering: .sequentiallyConsistent)
        if bits != 0 { Unmanaged<Box>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The published instance. Call only inside `Reclamation.read`.
    @inlinable @inline(__always)
    func readPublished() -> T? {
        let bits = box.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return nil }
        return Unmanaged<Box>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef { box in
            isWeak ? box.object.map { $0 as! T } : box.value
        }
    }

    /// The published instance, or `nil` when none is (or a weak one has gone).
    @inline(__always)
    func published() -> T? { Reclamation.read(ThreadState.current) { readPublished() } }

    override func publishedAny() -> Any? { published() }

    override func publish(_ any: Any) -> [AnyObject] {
        let typed = any as! T
        let newBox: Box
        if isWeak {
            // A value type cannot be held weakly: it behaves as `unique` (nothing is kept).
            guard Swift.type(of: any) is AnyClass else { return [] }
            newBox = Box(value: nil, object: typed as AnyObject)
        } else {
            newBox = Box(value: typed, object: nil)
        }
        var released = swap(in: Int(bitPattern: Unmanaged.passRetained(newBox).toOpaque())).map { [$0] } ?? []
        // Removed meanwhile: `remove` set the flag before clearing, so either it clears this
        // box or this check sees the flag (both sequentially consistent).
        if retirement.isRetired, let mine = swap(in: 0) { released.append(mine) }
        return released
    }

    override func clear() { _ = swap(in: 0) }

    /// Publishes `bits` and returns the previous box, once no reader can still use it; the
    /// caller drops it (outside its locks).
    private func swap(in bits: Int) -> AnyObject? {
        let old = box.exchange(bits, ordering: .sequentiallyConsistent)
        guard old != 0 else { return nil }
        Reclamation.synchronize()
        return Unmanaged<Box>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
    }
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
