/// One cache location of a cached lifetime: a singleton's instance in its owner, a
/// `perContainer` instance in one container, or either of them inside an override scope.
///
/// Two kinds of state live here. The published instance is guarded by the slot's own lock, so
/// reading a cached instance touches no lock shared with other slots. The build state (who is
/// building, and the built-but-unpublished instance) is guarded by `BuildCoordinator.lock`.
class AnySlot: @unchecked Sendable {
    // @unchecked: `lock` guards the published instance (in the subclass); `builder` and `phase`
    // are only touched with `BuildCoordinator.shared.lock` held.
    let lock = Lock()
    var builder: ResolutionContext?
    var phase: BuildPhase = .constructing

    enum BuildPhase {
        case constructing
        case built(Any)
    }

    /// The published instance, erased. Call with the coordinator lock held or not.
    func publishedAny() -> Any? { fatalError("AnySlot is abstract: use Slot<T>") }
    /// Stores the instance for other resolves. Called with the coordinator lock held.
    func publish(_ value: Any) { fatalError("AnySlot is abstract: use Slot<T>") }
    /// Drops the published instance.
    func clear() { fatalError("AnySlot is abstract: use Slot<T>") }
}

/// A typed slot: reading it needs no dynamic cast.
final class Slot<T>: AnySlot, @unchecked Sendable {
    // @unchecked: `value` and `object` are only touched with `lock` held.
    private let isWeak: Bool
    private var value: T?
    private weak var object: AnyObject?

    init(weak isWeak: Bool) { self.isWeak = isWeak }

    /// The published instance, or `nil` when none is (or a weak one has gone).
    @inline(__always)
    func published() -> T? {
        lock.lock()
        defer { lock.unlock() }
        if isWeak { return object.map { $0 as! T } }
        return value
    }

    override func publishedAny() -> Any? { published() }

    override func publish(_ any: Any) {
        let typed = any as! T
        lock.withLock {
            if isWeak {
                // A value type cannot be held weakly: it behaves as `unique` (nothing is kept).
                if Swift.type(of: any) is AnyClass { object = typed as AnyObject }
            } else {
                value = typed
            }
        }
    }

    override func clear() {
        // Release outside the lock: a deinit may resolve or register.
        let old: (T?, AnyObject?) = lock.withLock {
            defer { value = nil; object = nil }
            return (value, object)
        }
        _ = old
    }
}
