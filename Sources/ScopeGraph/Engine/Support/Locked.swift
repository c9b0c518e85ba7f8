#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a platform mutex. Copies share the value and the mutex (they reference one
/// storage object); the value is reachable only inside `withLock`. `Sendable` only when the
/// value is, as the standard `Mutex` is for values that are not sent into it; debug builds
/// check it (`LockChecks`).
///
/// A pthread mutex rather than the standard `Mutex`: on Linux the standard one waits with raw
/// futex calls, which ThreadSanitizer does not see, so every access it orders would be
/// reported as a race; ThreadSanitizer intercepts pthread calls. Every return code is checked,
/// as swift-nio's `NIOLock` does.
package struct Locked<Value> {
    private let storage: LockStorage<Value>

    package init(_ value: consuming Value) { storage = LockStorage.make(value) }

    /// Runs `body` with the value, under the lock. No code that may take this lock again may
    /// run inside.
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeMutablePointers { (value, mutex) throws(E) -> R in
            LockChecks.lock(mutex)
            defer { LockChecks.unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// The storage of a `Locked`: a `ManagedBuffer` whose header is the value and whose one
/// element is the mutex, allocated with the object, at an address that stays fixed for the
/// object's life (a pthread mutex must not move). One allocation per lock, not two (an
/// object and a separately allocated mutex): measured, a request scope (benchmark K) makes
/// and frees one per container. Both are reached through the buffer's pointers, so taking the
/// lock pays no dynamic exclusivity check.
final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    static func make(_ value: consuming Value) -> LockStorage<Value> {
        // Moved into the header, not copied (a closure returning a captured value copies it:
        // measured, a container's state was copied and destroyed once per container).
        var moving = Optional(value)
        let buffer = create(minimumCapacity: 1) { _ in moving.take()! }
        // Invariant: `create` called on this subclass makes an instance of it (instances of a
        // `ManagedBuffer` subclass come only from `create`); `unsafeDowncast` checks it in
        // debug builds.
        let storage = unsafeDowncast(buffer, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            LockChecks.initialize(mutex)
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            checkPthread(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
            mutex.deinitialize(count: 1)
        }
    }
}

// @unchecked: the value is only reachable inside `withLock`, with the mutex held; the mutex is
// only used through pthread calls.
extension Locked: @unchecked Sendable where Value: Sendable {}
