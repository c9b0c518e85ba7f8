import Synchronization

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

    /// True while the lock is taken and a thread may be sleeping for it (for tests).
    static func isWanted(_ word: borrowing Atomic<UInt32>) -> Bool { word.load(ordering: .relaxed) == 2 }

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
