import Synchronization

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

/// A value reachable only while holding its lock, usable with state that is not `Sendable`.
///
/// The lock is one word in the same object as the state: taking and releasing it uncontended
/// is one atomic instruction each, inlined, with no call into the C library and no separate
/// allocation (every container has one of these). A thread that finds it taken spins briefly,
/// then sleeps on a `ParkingLot` condition variable until the holder lets go (the classic
/// three-state futex mutex, with a pthread condition variable for the futex).
///
/// Not Synchronization's `Mutex`: on Linux its contended path runs in the library, which
/// ThreadSanitizer does not see, so it reports races that are not there. Every atomic
/// operation here is compiled into this module, where ThreadSanitizer sees the acquire and
/// release edges.
package final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only reachable inside `withLock`, with `word` held.

    /// 0 unlocked, 1 locked, 2 locked and a thread may be sleeping for it.
    private let word = Atomic<UInt32>(0)
    /// No dynamic exclusivity check: the lock already makes every access exclusive (a nested
    /// `withLock` on the same value would deadlock before it could overlap).
    @exclusivity(unchecked) private var state: State

    package init(_ state: State) { self.state = state }

    /// True while the lock is taken and a thread may be sleeping for it (for tests).
    var isWanted: Bool { word.load(ordering: .relaxed) == 2 }

    /// Runs `body` with the state, under the lock.
    @inline(__always)
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        LockWord.lock(word, of: self)
        defer { LockWord.unlock(word, of: self) }
        return try body(&state)
    }
}

/// The lock of `Locked` and of a container's state: a 32-bit word, 0 unlocked, 1 locked, 2
/// locked and a thread may be sleeping for it, kept in the object whose state it guards
/// (`owner`, which also picks the parking lot).
enum LockWord {
    /// Takes the lock: one atomic instruction when it is free.
    @inline(__always)
    static func lock(_ word: borrowing Atomic<UInt32>, of owner: AnyObject) {
        if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            lockContended(word, of: owner)
        }
    }

    /// Releases the lock, waking the threads that may sleep for it.
    @inline(__always)
    static func unlock(_ word: borrowing Atomic<UInt32>, of owner: AnyObject) {
        if word.exchange(0, ordering: .releasing) == 2 { ParkingLot.wakeAll(for: owner) }
    }

    @inline(never)
    private static func lockContended(_ word: borrowing Atomic<UInt32>, of owner: AnyObject) {
        // Critical sections here are short (no user code runs under these locks): the holder
        // is usually done within a few hundred instructions.
        for _ in 0..<100 where word.load(ordering: .relaxed) == 0 {
            if word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        }
        ParkingLot.sleep(for: owner) {
            // Marks the lock as wanted whether or not it is free: taking it this way leaves it
            // at 2, so its release wakes the lot once more than needed, never once too few.
            word.exchange(2, ordering: .acquiring) == 0
        }
    }
}

/// Where threads sleep while a `Locked` is taken: a few condition variables shared by all the
/// locks, picked by the lock's address. A thread that finds a lock taken marks it wanted and
/// sleeps with its lot's mutex released atomically; a thread releasing a wanted lock takes the
/// same mutex to wake the lot, so no wake-up is lost between the mark and the sleep. A wake-up
/// meant for another lock of the same lot only makes its sleepers check again.
enum ParkingLot {
    private static let lots = (0..<64).map { _ in Lock() }

    /// The lot of `object`: its address bits above the allocation alignment.
    private static func lot(for object: AnyObject) -> Lock {
        lots[Int((UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object))) >> 4) & 63)]
    }

    /// Sleeps on the lot of `object` until `tryAcquire`, called with the lot's mutex held,
    /// returns true.
    static func sleep(for object: AnyObject, until tryAcquire: () -> Bool) {
        let lot = lot(for: object)
        lot.lock()
        while !tryAcquire() { lot.wait() }
        lot.unlock()
    }

    /// Wakes every thread sleeping on the lot of `object`.
    @inline(never)
    static func wakeAll(for object: AnyObject) {
        let lot = lot(for: object)
        lot.lock()
        lot.broadcast()
        lot.unlock()
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
