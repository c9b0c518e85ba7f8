import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// A parent's children made on several threads at once (their serials arrive out of order)
/// and freed in any order (tombstones, compaction): what goes through the list afterwards
/// still reaches every live child and no freed one. Listing, lookups invalidated through the
/// children, and the shutdown of descendants.
@Suite struct ChildRemovalOrderTests {
    final class Service: Sendable {
        let version: Int
        init(version: Int) { self.version = version }
    }

    /// Children made by four threads at once, each thread freeing a seeded random part of its
    /// children in random order (oldest first, newest first, or scattered), with grandchildren
    /// under some. Afterwards: the parent lists exactly the kept children, in creation order;
    /// a registration replaced in the parent reaches every kept grandchild's memoized lookup;
    /// the parent's shutdown shuts down every kept child and runs each kept child's hook once.
    @Test(arguments: [11, 12, 13] as [UInt64])
    func childrenFreedInAnyOrderFromManyThreadsLeaveTheLiveOnesReachable(seed: UInt64) async throws {
        let root = Container(name: "app")
        root.register(Service.self, lifetime: .unique) { _ in Service(version: 1) }
        let recorder = ShutdownRecorder()
        let kept = Guarded<[(child: Container, grandchild: Container?)]>([])
        let failures = Guarded<[String]>([])
        let threads = 4
        let perThread = 400
        let barrier = Reliability.Barrier(count: threads)
        let finished = await runOnNewThread {
            runOnThreads(threads, timeout: 60) { index in
                var random = Reliability.SplitMix64(seed: seed &* 31 &+ UInt64(index))
                barrier.arriveAndWait()
                var alive: [(child: Container, grandchild: Container?)] = []
                for number in 0..<perThread {
                    let child = root.makeChild(name: "child-\(index)-\(number)")
                    child.register(ShutdownProbe.self, lifetime: .singleton) { _ in
                        ShutdownProbe("child-\(index)-\(number)")
                    }.onShutdown { probe in recorder.record(probe) }
                    let grandchild = random.chance(30) ? child.makeChild(name: "grand-\(index)-\(number)") : nil
                    if let grandchild, (try? grandchild.resolve(Service.self))?.version != 1 {
                        failures.withLock { $0.append("\(grandchild.name) did not resolve version 1") }
                    }
                    alive.append((child, grandchild))
                    // Free some: the newest, the oldest, or one at random.
                    guard random.chance(60), !alive.isEmpty else { continue }
                    switch random.below(3) {
                    case 0: alive.removeLast()
                    case 1: alive.removeFirst()
                    default: alive.remove(at: random.below(alive.count))
                    }
                }
                // Keep a few, free the rest in random order.
                alive.shuffle(using: &random)
                let keep = alive.prefix(5)
                alive.removeAll()
                kept.withLock { $0 += keep }
            }
        }
        #expect(finished)
        #expect(failures.current.isEmpty)
        let survivors = kept.current
        for (child, _) in survivors { _ = try child.resolve(ShutdownProbe.self) }
        let expected = survivors.map(\.child).sorted { $0.serial < $1.serial }
        #expect(root.children.map(\.name) == expected.map(\.name))
        for (child, grandchild) in survivors {
            #expect(child.children.map(\.name) == (grandchild.map { [$0.name] } ?? []))
        }

        // Replacing the parent's registration reaches every kept grandchild's memoized lookup.
        root.register(Service.self, lifetime: .unique) { _ in Service(version: 2) }
        for grandchild in survivors.compactMap(\.grandchild) {
            #expect(try grandchild.resolve(Service.self).version == 2, "\(grandchild.name)")
        }

        _ = try await withAsyncWatchdog(seconds: 30) { try await root.shutdown() }
        #expect(survivors.allSatisfy { $0.child.isShutDown && $0.grandchild?.isShutDown != false })
        #expect(recorder.labels.sorted() == survivors.map(\.child.name).sorted())
    }

    /// One parent's children all freed, from oldest to newest, by one thread while another
    /// makes and frees request scopes at the end of the list and a third keeps registering in
    /// the parent (each registration walks the children): no child is lost or listed twice,
    /// and at the end the list is empty and the parent's lookups still work.
    @Test func compactionWhileOtherThreadsAddAndWalkLosesNoChild() async {
        let root = Container(name: "app")
        root.register(Service.self, lifetime: .perContainer) { _ in Service(version: 0) }
        let old = Guarded<[Container]>((0..<2_000).map { root.makeChild(name: "old-\($0)") })
        let failures = Guarded<[String]>([])
        let finished = await runOnNewThread {
            runOnThreads(3, timeout: 60) { index in
                switch index {
                case 0:
                    // Oldest first: tombstones build up and get compacted.
                    while let first = old.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { _ = first }
                case 1:
                    for number in 0..<2_000 {
                        let scope = root.makeChild(name: "request-\(number)")
                        if (try? scope.resolve(Service.self)) == nil {
                            failures.withLock { $0.append("request-\(number) did not resolve") }
                        }
                        let listed = root.children.filter { $0 === scope }.count
                        if listed != 1 { failures.withLock { $0.append("request-\(number) listed \(listed) times") } }
                    }
                default:
                    for round in 0..<200 {
                        root.register(Int.self, tag: ServiceTag("marker-\(round)"), lifetime: .unique) { _ in round }
                        let names = root.children.map(\.name)
                        if Set(names).count != names.count { failures.withLock { $0.append("a child listed twice") } }
                    }
                }
            }
        }
        #expect(finished)
        #expect(failures.current.isEmpty)
        #expect(root.children.isEmpty)
        #expect(root.withState { $0.children.isEmpty })
        #expect((try? root.resolve(Int.self, tag: ServiceTag("marker-199"))) == 199)
    }
}
