#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock with a condition variable, built on pthreads so it works on every
/// platform the package supports (Synchronization's `Mutex` needs macOS 15).
package final class Lock: @unchecked Sendable {
    // @unchecked: the pthread objects are heap-allocated, never moved, and only touched through
    // the pthread calls below, which are themselves thread-safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        mutex = makeMutex()
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let condResult = pthread_cond_init(condition, nil)
        precondition(condResult == 0, "pthread_cond_init failed with \(condResult)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        destroyMutex(mutex)
    }

    @inline(__always) package func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) package func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock, sleeps until `broadcast()`, and takes the lock again. Call with the
    /// lock held, in a loop that re-checks the condition waited for.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every thread sleeping in `wait()`.
    package func broadcast() { pthread_cond_broadcast(condition) }

    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A heap-allocated, initialized pthread mutex (it must never move).
private func makeMutex() -> UnsafeMutablePointer<pthread_mutex_t> {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let result = pthread_mutex_init(mutex, nil)
    precondition(result == 0, "pthread_mutex_init failed with \(result)")
    return mutex
}

private func destroyMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
}
