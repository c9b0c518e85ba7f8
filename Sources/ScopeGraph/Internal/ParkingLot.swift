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
