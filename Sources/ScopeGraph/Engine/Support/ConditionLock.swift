#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A platform mutex with a condition variable, for the one place that must block a thread
/// until another thread's build ends (`BuildCoordinator`). Every pthread call's return code is
/// checked: a failing lock operation is a broken invariant, never something to carry on from.
///
/// The standard `Mutex` has no condition variable (and ThreadSanitizer does not see its waits,
/// see `Locked`), so this wraps the pthread objects the way swift-nio's `NIOLock` does:
/// heap-allocated (never moved), touched only through the calls below.
final class ConditionLock: @unchecked Sendable {
    // @unchecked: the pthread objects live at fixed heap addresses and are only used through
    // pthread calls, which are thread-safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        LockChecks.initialize(mutex)
        checkPthread(pthread_cond_init(condition, nil), "pthread_cond_init")
    }

    deinit {
        checkPthread(pthread_cond_destroy(condition), "pthread_cond_destroy")
        checkPthread(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func lock() { LockChecks.lock(mutex) }
    func unlock() { LockChecks.unlock(mutex) }

    /// Sleeps until `broadcast()`, with the lock released meanwhile. Call with the lock held;
    /// wake-ups may be spurious, so callers re-check their condition in a loop.
    func wait() { checkPthread(pthread_cond_wait(condition, mutex), "pthread_cond_wait") }

    /// Wakes every waiting thread. Call with the lock held.
    func broadcast() { checkPthread(pthread_cond_broadcast(condition), "pthread_cond_broadcast") }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
