import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// `Locked` (the standard `Mutex` in a shareable box), containers' locks under contention, and
/// `ConditionLock`, the coordinator's lock: no lost update, no lost wake-up.
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
    @Test func conditionLockWaitersWakeOnEveryBroadcast() {
        let lock = ConditionLock()
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
    @Test func conditionLockWaiterSleepsUntilTheNextBroadcast() {
        let lock = ConditionLock()
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
        // At least once (a pthread condition may wake spuriously; a missed wake-up times out).
        #expect(wakeUps.withLock { $0 } >= 1)
    }
}
