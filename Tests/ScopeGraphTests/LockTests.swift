import Foundation
import Testing

@testable import ScopeGraph

/// `Locked`, the lock of every container's state: exclusive under contention, sleeping
/// threads woken when it is released, locks that share a parking lot kept apart.
@Suite struct LockTests {
    @Test func everyIncrementUnderTheLockCountsWithEightThreads() {
        let counter = Locked(0)
        let threads = 8
        let increments = 20_000
        runOnThreads(threads) { _ in
            for _ in 0..<increments {
                counter.withLock { value in
                    // A read, some work, then the write: lost updates show if two threads overlap.
                    let read = value
                    var spin = 0
                    for step in 0..<8 { spin &+= step }
                    value = read + 1 + spin - 28
                }
            }
        }
        #expect(counter.withLock { $0 } == threads * increments)
    }

    @Test func aThreadThatFindsTheLockTakenSleepsUntilItIsReleased() {
        let lock = Locked([String]())
        let wanted = Self.holdWhileAnotherThreadWaits(
            hold: { body in
                lock.withLock { events in
                    body()
                    events.append("first releases")
                }
            },
            isWanted: { lock.isWanted },
            waiter: { lock.withLock { $0.append("second") } })
        #expect(lock.withLock { $0 } == ["first releases", "second"])
        #expect(wanted)
        #expect(!lock.isWanted)
    }

    /// Runs `hold` on one thread and `waiter` on another once `hold` has the lock; `hold` keeps
    /// it until the waiter has stopped spinning and gone to sleep (the lock is then marked
    /// wanted), or for at most 5 s. Returns whether the lock was marked wanted before `hold` let
    /// go.
    private static func holdWhileAnotherThreadWaits(
        hold: @escaping @Sendable (_ whileHeld: () -> Void) -> Void, isWanted: @escaping @Sendable () -> Bool,
        waiter: @escaping @Sendable () -> Void
    ) -> Bool {
        let held = DispatchSemaphore(value: 0)
        let wantedWhileHeld = Locked(false)
        runOnThreads(2) { index in
            if index == 0 {
                hold {
                    held.signal()
                    // Polled, not a fixed sleep: a loaded machine may be slow to run the waiter.
                    let deadline = Date(timeIntervalSinceNow: 5)
                    while !isWanted(), Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                    wantedWhileHeld.withLock { $0 = isWanted() }
                }
            } else {
                _ = held.wait(timeout: .now() + 5)
                waiter()
            }
        }
        return wantedWhileHeld.withLock { $0 }
    }

    @Test func locksThatShareAParkingLotKeepTheirCountsApart() {
        // More locks than lots: wake-ups of one lock reach sleepers of others on its lot.
        let locks = (0..<200).map { _ in Locked(0) }
        let threads = 6
        let rounds = 4_000
        runOnThreads(threads) { index in
            var generator = Reliability.SplitMix64(seed: UInt64(index))
            for _ in 0..<rounds {
                // Half of the traffic on four hot locks, so that threads sleep on them.
                let target = generator.chance(50) ? generator.below(4) : generator.below(locks.count)
                locks[target].withLock { $0 += 1 }
            }
        }
        #expect(locks.reduce(0) { sum, lock in sum + lock.withLock { $0 } } == threads * rounds)
        #expect(locks.allSatisfy { !$0.isWanted })
    }

    @Test func aContainersOwnLockMakesARegistrationWaitAndSleep() throws {
        let container = Container(name: "app")
        let wanted = Self.holdWhileAnotherThreadWaits(
            hold: { body in container.withState { _ in body() } },
            isWanted: { container.isStateLockWanted },
            waiter: { container.register(Int.self) { _ in 7 } })
        #expect(wanted)
        #expect(!container.isStateLockWanted)
        #expect(try container.resolve(Int.self) == 7)
    }

    @Test func threadsRegisteringIntoOneContainerAllLand() throws {
        let container = Container(name: "app")
        let threads = 8
        let perThread = 500
        runOnThreads(threads) { index in
            for number in 0..<perThread {
                let value = index * perThread + number
                container.register(Int.self, tag: ServiceTag("n\(value)"), lifetime: .unique) { _ in value }
            }
        }
        for value in 0..<(threads * perThread) {
            #expect(try container.resolve(Int.self, tag: ServiceTag("n\(value)")) == value)
        }
    }

    /// The coordinator's lock: two threads take turns through `wait()` and `broadcast()`
    /// 20,000 times; a lost wake-up would leave one asleep (the harness then fails the test).
    @Test func waitableLockWaitersWakeOnEveryBroadcast() {
        let lock = WaitableLock()
        let turn = Locked(0)  // read and written only with `lock` held; `Locked` for Sendable
        let rounds = 20_000
        let finished = runOnThreads(2, timeout: 30) { index in
            for round in 0..<rounds {
                lock.withLock {
                    while turn.withLock({ $0 }) % 2 != index { lock.wait() }
                    turn.withLock { $0 += 1 }
                    _ = round
                    lock.broadcast()
                }
            }
        }
        #expect(finished)
        #expect(turn.withLock { $0 } == 2 * rounds)
    }

    /// A broadcast with nobody waiting wakes nobody later; a waiter sleeps until the next
    /// broadcast and wakes then, exactly once (a missed one leaves it asleep and fails the test;
    /// a stale one wakes it early, and it waits twice).
    @Test func waitableLockWaiterSleepsUntilTheNextBroadcast() {
        let lock = WaitableLock()
        let ready = Locked(false)
        let wakeUps = Locked(0)
        let waiting = DispatchSemaphore(value: 0)
        lock.withLock { lock.broadcast() }
        let finished = runOnThreads(2, timeout: 10) { index in
            if index == 0 {
                lock.withLock {
                    // Signalled with the lock held: the broadcaster gets the lock only once
                    // `wait()` has released it, so the broadcast comes after the waiter waits.
                    waiting.signal()
                    while !ready.withLock({ $0 }) {
                        lock.wait()
                        wakeUps.withLock { $0 += 1 }
                    }
                }
            } else {
                guard waiting.wait(timeout: .now() + 5) == .success else { return }
                lock.withLock {
                    ready.withLock { $0 = true }
                    lock.broadcast()
                }
            }
        }
        #expect(finished)
        #expect(wakeUps.withLock { $0 } == 1)
    }
}
