import Foundation
import ScopeGraphTestSupport
import Synchronization
import Testing

@testable import ScopeGraph

/// The memory reclamation behind the lock-free reads (`Reclamation`): a writer that unlinks
/// an object waits, in `synchronize()`, for every read that began before; reads that begin
/// later, and threads that read nothing, do not hold it up; a cached instance read while its
/// registration is replaced over and over is never one that was already freed.
@Suite struct ReclamationTests {
    /// Counts its live instances; a read of a freed one would find `isAlive` false (and fails
    /// under AddressSanitizer as a use after free).
    final class Tracked: Sendable {
        static let live = Atomic<Int>(0)
        let isAlive = Atomic<Bool>(true)
        let generation: Int
        init(_ generation: Int) {
            self.generation = generation
            Self.live.add(1, ordering: .relaxed)
        }
        deinit {
            isAlive.store(false, ordering: .sequentiallyConsistent)
            Self.live.subtract(1, ordering: .relaxed)
        }
    }

    @Test func synchronizeWaitsForAReadThatBeganBeforeIt() {
        let readOpen = DispatchSemaphore(value: 0)
        let readEnded = Atomic<Bool>(false)
        let synchronizedAfterTheRead = Atomic<Bool>(false)
        let finished = runOnThreads(2, timeout: 10) { index in
            if index == 0 {
                let thread = ThreadState.current
                Reclamation.begin(thread)
                readOpen.signal()
                Thread.sleep(forTimeInterval: 0.1)
                readEnded.store(true, ordering: .sequentiallyConsistent)
                Reclamation.end(thread)
            } else {
                guard readOpen.wait(timeout: .now() + 5) == .success else { return }
                Reclamation.synchronize()
                synchronizedAfterTheRead.store(readEnded.load(ordering: .sequentiallyConsistent), ordering: .relaxed)
            }
        }
        let waitedForTheRead = synchronizedAfterTheRead.load(ordering: .relaxed)
        #expect(finished)
        #expect(waitedForTheRead)
    }

    /// With no read open, `synchronize()` waits for nothing (threads that read nothing do not
    /// hold it up), and a read announces its epoch only while it is open.
    @Test func synchronizeReturnsAtOnceWhenNoReadIsOpen() {
        let clock = ContinuousClock()
        let elapsed = clock.measure { for _ in 0..<1_000 { Reclamation.synchronize() } }
        #expect(elapsed < .seconds(5))
        let thread = ThreadState.current
        Reclamation.begin(thread)
        let announcedWhileOpen = thread.announced.load(ordering: .relaxed)
        Reclamation.end(thread)
        let announcedAfter = thread.announced.load(ordering: .relaxed)
        #expect(announcedWhileOpen != 0)
        #expect(announcedAfter == 0)
    }

    /// Two readers read a cached singleton through the lock-free path while a writer replaces
    /// its registration 2,000 times (each replacement unlinks the published box and the memo
    /// snapshot, and frees the old instance once no read can use it). Every instance read is
    /// alive at the moment it is read, and none is left over at the end.
    @Test func aCachedInstanceReadWhileItsRegistrationIsReplacedIsNeverAFreedOne() {
        let container = Container(name: "app")
        container.register(Tracked.self, lifetime: .singleton) { _ in Tracked(0) }
        let stop = Atomic<Bool>(false)
        let deadReads = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        let finished = runOnThreads(3, timeout: 60) { index in
            if index == 0 {
                for generation in 1...2_000 {
                    container.register(Tracked.self, lifetime: .singleton) { _ in Tracked(generation) }
                    // Looked up twice, so that the key is memoized and read lock-free.
                    _ = try? container.resolve(Tracked.self)
                    _ = try? container.resolve(Tracked.self)
                }
                stop.store(true, ordering: .sequentiallyConsistent)
            } else {
                while !stop.load(ordering: .sequentiallyConsistent) {
                    guard let instance = try? container.resolve(Tracked.self) else { continue }
                    if !instance.isAlive.load(ordering: .sequentiallyConsistent) {
                        deadReads.add(1, ordering: .relaxed)
                    }
                    reads.add(1, ordering: .relaxed)
                }
            }
        }
        let (readCount, deadReadCount) = (reads.load(ordering: .relaxed), deadReads.load(ordering: .relaxed))
        #expect(finished)
        #expect(readCount > 0)
        #expect(deadReadCount == 0)
        container.removeAll()
        let liveAfterwards = Tracked.live.load(ordering: .relaxed)
        #expect(liveAfterwards == 0)
    }
}
