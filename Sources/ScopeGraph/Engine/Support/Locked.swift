#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a platform mutex, in a class so that several owners can share it. The value
/// is reachable only inside `withLock`.
///
/// A pthread mutex rather than the standard `Mutex`: on Linux the standard one waits with raw
/// futex calls, which ThreadSanitizer does not see, so every access it orders would be
/// reported as a race; ThreadSanitizer intercepts pthread calls. Every return code is checked,
/// as swift-nio's `NIOLock` does.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only reachable inside `withLock`, with the mutex held; the mutex
    // lives at a fixed heap address and is only used through pthread calls. The mutex makes
    // every access to `value` exclusive (a nested `withLock` would deadlock before it could
    // overlap), so the dynamic exclusivity check, paid on every lock, is off.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        checkPthread(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
    }

    deinit {
        checkPthread(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, under the lock. No code that may take this lock again may
    /// run inside.
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        checkPthread(pthread_mutex_lock(mutex), "pthread_mutex_lock")
        defer { checkPthread(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
        return try body(&value)
    }
}

/// Stops the program when a pthread call fails: a failing lock operation is a broken
/// invariant (a lock used after it was destroyed, or unlocked by another thread), never
/// something to carry on from.
func checkPthread(_ result: Int32, _ call: StaticString) {
    precondition(result == 0, "ScopeGraph: \(call) failed with error \(result)")
}
