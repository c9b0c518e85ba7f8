#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The storage the three property wrappers share: which container and tag to resolve from,
/// and the instance once resolved.
///
/// A property wrapper is a struct that lives inside structs and classes and may be read from
/// several threads; the state lives in this reference type so that every copy of a wrapper sees
/// one binding and one instance, reads need no `mutating` access, and a first read from several
/// threads resolves once: the first reader resolves (outside the lock, since factories are user
/// code), the others wait for it.
final class InjectionBox<T>: @unchecked Sendable {
    // @unchecked: `binding`, `state` and `object` are only read or written with `lock` held;
    // `holdsWeakly` and `site` are immutable.
    private let lock = ConditionLock()
    private let holdsWeakly: Bool
    let site: InjectionSite
    private var binding: Binding
    private var state: State = .unresolved
    private weak var object: AnyObject?

    /// Where to resolve from: `container` `nil` means `Container.current` at resolve time.
    struct Binding {
        var container: Container?
        var tag: ServiceTag?
    }

    private enum State {
        case unresolved
        /// The thread resolving the first read; other readers wait.
        case resolving(pthread_t)
        /// Resolved and held strongly (or a value type under a weak wrapper).
        case strong(T)
        /// Resolved and held weakly in `object`, which may be gone.
        case weak
    }

    init(tag: ServiceTag?, container: Container?, holdsWeakly: Bool, site: InjectionSite) {
        self.binding = Binding(container: container, tag: tag)
        self.holdsWeakly = holdsWeakly
        self.site = site
    }

    /// The container and tag the next resolve uses.
    var currentBinding: Binding { lock.withLock { binding } }

    /// True once a value has been resolved or assigned, and not rebound since.
    var isResolved: Bool {
        lock.withLock {
            switch state {
            case .strong, .weak: true
            case .unresolved, .resolving: false
            }
        }
    }

    /// Changes the binding and forgets the instance, so the next read resolves afresh.
    func rebind(_ change: (inout Binding) -> Void) {
        let released = lock.withLock { () -> (Binding, State, AnyObject?) in
            let old = (binding, state, object)
            change(&binding)
            state = .unresolved
            object = nil
            lock.broadcast()
            return old
        }
        // The old binding (it may hold its container's last reference) and the old instance
        // are released here, outside the lock: their deinits may resolve or read wrappers.
        _ = released
    }

    /// Stores a value as if it had been resolved; `nil` makes a weak wrapper read `nil`.
    func assign(_ value: T?) {
        let released: State = lock.withLock {
            defer { lock.broadcast() }
            let old = state
            store(value)
            return old
        }
        _ = released
    }

    /// The instance: resolved on the first read, then the one kept (or `nil` once a weakly held
    /// instance is gone). Stops the program when the resolve fails.
    func value() -> T? {
        let me = pthread_self()
        lock.lock()
        while true {
            switch state {
            case .strong(let value):
                lock.unlock()
                return value
            case .weak:
                let kept = object
                lock.unlock()
                return kept.map { $0 as! T }
            case .resolving(let owner):
                if pthread_equal(owner, me) != 0 {
                    lock.unlock()
                    fatalError(reentrantInjectionMessage(site: site, type: T.self), file: site.file, line: site.line)
                }
                lock.wait()
            case .unresolved:
                state = .resolving(me)
                let binding = self.binding
                lock.unlock()
                let value = resolveOrStop(binding)
                lock.withLock {
                    // A rebinding or an assignment during the resolve wins; this value is only returned.
                    if case .resolving(let owner) = state, pthread_equal(owner, me) != 0 { store(value) }
                    lock.broadcast()
                }
                return value
            }
        }
    }

    /// Call with `lock` held.
    private func store(_ value: T?) {
        guard let value else {
            state = holdsWeakly ? .weak : .unresolved
            object = nil
            return
        }
        // A value type has no lifetime to observe weakly: it is kept as a copy.
        if holdsWeakly, Swift.type(of: value as Any) is AnyClass {
            object = value as AnyObject
            state = .weak
        } else {
            state = .strong(value)
        }
    }

    private func resolveOrStop(_ binding: Binding) -> T {
        let container = binding.container ?? Container.current
        do {
            return try Self.resolveInjected(from: container, tag: binding.tag)
        } catch {
            let message = injectionFailureMessage(
                site: site, type: T.self, tag: binding.tag, container: container.name, error: error)
            fatalError(message, file: site.file, line: site.line)
        }
    }
}
