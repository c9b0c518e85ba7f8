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

/// A value reachable only while holding its lock: a pthread mutex (which ThreadSanitizer
/// understands; it does not see the happens-before edges of Synchronization's `Mutex` on
/// Linux), without the condition variable of `Lock`, usable with state that is not `Sendable`.
///
/// A reference to one `LockedBuffer`: copies share the state and the mutex.
package struct Locked<State>: @unchecked Sendable {
    // @unchecked: the state is only reachable inside `withLock`, under the mutex.
    let buffer: LockedBuffer<State>

    /// A lock around `state` (made in place, not copied).
    package init(_ state: @autoclosure () -> State) { buffer = LockedBuffer.make(state) }

    /// The lock of `buffer` (one that `Locked` made).
    init(buffer: LockedBuffer<State>) { self.buffer = buffer }

    /// Runs `body` with the state, under the mutex. No dynamic exclusivity check: the mutex
    /// already makes every access exclusive (a nested `withLock` on the same value would
    /// deadlock before it could overlap).
    @inline(__always)
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try buffer.withUnsafeMutablePointers { state, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}

/// The storage of a `Locked`: one allocation holds both, the state as the buffer's header and
/// the mutex as its one element, which never moves (a container costs one allocation less than
/// with a mutex of its own).
final class LockedBuffer<State>: ManagedBuffer<State, pthread_mutex_t> {
    static func make(_ state: () -> State) -> LockedBuffer<State> {
        let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in state() }, to: LockedBuffer<State>.self)
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed with \(result)")
        }
        return buffer
    }

    deinit {
        _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
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
