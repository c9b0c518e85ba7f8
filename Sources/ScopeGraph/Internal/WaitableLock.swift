import Synchronization

/// A lock with a condition to wait for, for the build coordinator: a `LockWord` (one atomic
/// instruction to take or release when free) and a count of the threads in `wait()`, so that a
/// broadcast nobody waits for costs one increment instead of a call into pthreads.
///
/// A waiter reads the broadcast generation and counts itself with the lock held, releases the
/// lock, and sleeps on `bed` until the generation moves. A broadcaster, holding the lock, moves
/// the generation and, when someone counted itself, wakes `bed` under its mutex. A waiter that
/// counted itself is seen by every later broadcast (the lock orders them), and it checks the
/// generation under `bed`'s mutex before sleeping, so no wake-up is lost in between.
final class WaitableLock: Sendable {
    private let word = Atomic<UInt32>(0)
    /// Moved by every broadcast, with the lock held (so a load and a store, not a
    /// read-modify-write: only the holder writes it).
    private let generation = Atomic<UInt64>(0)
    /// The threads in `wait()`; changed with the lock held, like `generation`.
    private let sleepers = Atomic<Int>(0)
    /// Where waiters sleep.
    private let bed = Lock()

    @inline(__always) func lock() { LockWord.lock(word, of: self) }
    @inline(__always) func unlock() { LockWord.unlock(word, of: self) }

    @inline(__always)
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Releases the lock, sleeps until a `broadcast()`, and takes the lock again. Call with the
    /// lock held, in a loop that re-checks the condition waited for.
    func wait() {
        let seen = generation.load(ordering: .relaxed)
        sleepers.store(sleepers.load(ordering: .relaxed) + 1, ordering: .relaxed)
        unlock()
        bed.lock()
        while generation.load(ordering: .acquiring) == seen { bed.wait() }
        bed.unlock()
        lock()
        sleepers.store(sleepers.load(ordering: .relaxed) - 1, ordering: .relaxed)
    }

    /// Wakes every thread in `wait()`. Call with the lock held.
    func broadcast() {
        generation.store(generation.load(ordering: .relaxed) &+ 1, ordering: .releasing)
        guard sleepers.load(ordering: .relaxed) > 0 else { return }
        bed.lock()
        bed.broadcast()
        bed.unlock()
    }
}
