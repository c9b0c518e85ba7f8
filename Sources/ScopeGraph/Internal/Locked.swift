import Synchronization

/// A value reachable only while holding its lock, usable with state that is not `Sendable`.
///
/// The lock is a `LockWord` in the same object as the state: taking and releasing it
/// uncontended is one atomic instruction each, inlined, with no call into the C library and no
/// separate allocation (a container keeps such a word for its own state, see
/// `Container.withState`). A thread that finds it taken spins briefly, then sleeps on a
/// `ParkingLot` condition variable until the holder lets go (the classic three-state futex
/// mutex, with a pthread condition variable for the futex).
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
    var isWanted: Bool { LockWord.isWanted(word) }

    /// Runs `body` with the state, under the lock.
    @inline(__always)
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        LockWord.lock(word, of: self)
        defer { LockWord.unlock(word, of: self) }
        return try body(&state)
    }
}
