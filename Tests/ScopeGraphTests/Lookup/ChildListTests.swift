import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// A parent's list of its children, which holds no reference to them: a child being freed is
/// never listed, and no listing keeps a child alive or frees it under its parent's lock.
@Suite struct ChildListTests {
    final class Handler: Sendable {}

    /// A child whose last reference goes while its parent's lock is held: its `deinit` waits
    /// for the lock, and a listing made meanwhile leaves it out (it must not be handed out
    /// again) but lists every other child. With 40 other children the list is a table.
    @Test(arguments: [2, 40])
    func aChildWhoseDeinitHasBegunIsNotListed(otherChildren: Int) {
        let root = Container(name: "app")
        let others = (0..<otherChildren).map { root.makeChild(name: "other-\($0)") }
        let dropped = Guarded<Container?>(root.makeChild(name: "dropped"))
        let held = DispatchSemaphore(value: 0)
        let listed = Locked<[String]>([])
        runOnThreads(2) { index in
            if index == 0 {
                root.withState { state in
                    held.signal()
                    // The dropping thread's `deinit` meanwhile waits for this lock.
                    Thread.sleep(forTimeInterval: 0.05)
                    let names = state.children.live.map(\.name)
                    listed.withLock { $0 = names }
                }
            } else {
                _ = held.wait(timeout: .now() + 5)
                dropped.withLock { $0 = nil }  // the last reference: `deinit` runs here
            }
        }
        #expect(listed.withLock { $0 } == others.map(\.name))
        #expect(root.children.map(\.name) == others.map(\.name))
    }

    /// Three threads make children, resolve a request-scoped service in them and drop them
    /// (up to 45 alive, so the list becomes a table), while a fourth lists the children,
    /// describes the tree and registers into the parent (which invalidates the children's
    /// lookups, visiting them all). Every listed child is alive and named as made; at the
    /// end none is left. Bounded: 1,500 children per thread.
    @Test func childrenListedWhileOthersComeAndGoAreAlive() {
        let root = Container(name: "app")
        root.register(Handler.self, lifetime: .perContainer) { _ in Handler() }
        let perThread = 1_500
        let strangers = Locked(0)
        let failures = Locked(0)
        runOnThreads(4, timeout: 60) { index in
            if index == 0 {
                for round in 0..<300 {
                    let children = root.children
                    let unexpected = children.filter { $0.parent !== root || !$0.name.hasPrefix("request-") }
                    strangers.withLock { $0 += unexpected.count }
                    _ = root.description
                    if round % 10 == 0 {
                        root.register(Int.self, tag: ServiceTag("marker-\(round)"), lifetime: .unique) { _ in round }
                    }
                }
            } else {
                var alive: [Container] = []
                for number in 0..<perThread {
                    let child = root.makeChild(name: "request-\(index)-\(number)")
                    if (try? child.resolve(Handler.self)) == nil { failures.withLock { $0 += 1 } }
                    alive.append(child)
                    if alive.count == 15 { alive.removeFirst(1 + number % 14) }
                }
            }
        }
        #expect(strangers.withLock { $0 } == 0)
        #expect(failures.withLock { $0 } == 0)
        #expect(root.children.isEmpty)
    }

    /// A seeded model of the list: children added (two at a time in either order, as when two
    /// threads make children at once) and removed in random order, the newest often, as
    /// request scopes go. After every step the list names the children not removed, in
    /// creation order.
    @Test(arguments: [1, 2, 3, 4])
    func childrenAddedAndRemovedInAnyOrderAreListedInCreationOrder(seed: UInt64) {
        var random = Reliability.SplitMix64(seed: seed)
        var list = ChildList()
        var made: [Container] = []  // held, so that the weak links stay valid
        var model: [Container] = []  // the children not removed, in creation order
        for step in 0..<3_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                let first = Container(name: "child-\(step)-a")
                let second = Container(name: "child-\(step)-b")
                made += [first, second]
                if Bool.random(using: &random) {
                    list.add(second)
                    list.add(first)
                } else {
                    list.add(first)
                    list.add(second)
                }
                model += [first, second]
            case 4..<6 where !model.isEmpty:
                list.remove(serial: model.removeLast().serial)
            default:
                guard !model.isEmpty else { continue }
                let gone = model.remove(at: Int.random(in: 0..<model.count, using: &random))
                list.remove(serial: gone.serial)
                list.remove(serial: gone.serial)  // a second removal changes nothing
            }
            let listed = list.live.map(\.serial)
            #expect(listed == model.map(\.serial), "step \(step)")
            #expect(list.isEmpty == model.isEmpty, "step \(step)")
            if listed != model.map(\.serial) { return }
        }
        for child in model.shuffled(using: &random) { list.remove(serial: child.serial) }
        #expect(list.isEmpty)
        #expect(list.live.isEmpty)
        withExtendedLifetime(made) {}
    }

    /// A registration's list of the containers holding its `perContainer` instances is pruned
    /// of links to containers that are gone and of repeated links (a container that built its
    /// instance again). Seeded lists of up to 60 links, so that the live links are both fewer
    /// and more than `removeGoneAndRepeated` searches without a set: what is kept is the
    /// first link to each live container, in list order, and it is what the call returns.
    @Test(arguments: [1, 2, 3, 4])
    func pruningKeepsTheFirstLinkToEachLiveContainerInOrder(seed: UInt64) {
        var random = Reliability.SplitMix64(seed: seed)
        for round in 0..<200 {
            let poolSize = Int.random(in: 1...40, using: &random)
            var pool: [Container?] = (0..<poolSize).map { Container(name: "holder-\($0)") }
            var links = (0..<Int.random(in: 0...60, using: &random)).map { _ in
                WeakContainer(pool[Int.random(in: 0..<pool.count, using: &random)]!)
            }
            // Some containers go; their links stay in the list.
            for index in pool.indices where Int.random(in: 0..<4, using: &random) == 0 { pool[index] = nil }
            let liveSerials = Set(pool.compactMap { $0?.serial })
            var seen: Set<UInt64> = []
            let expected = links.map(\.serial).filter { liveSerials.contains($0) && seen.insert($0).inserted }
            let kept = withExtendedLifetime(pool) { links.removeGoneAndRepeated().map(\.serial) }
            #expect(kept == expected, "round \(round)")
            #expect(links.map(\.serial) == expected, "round \(round)")
            if kept != expected { return }
        }
    }

    /// Children freed oldest first each leave the parent's list in logarithmic time: 40,000 of
    /// them took 70 s in a debug build when each removal shifted the list (0.12 s now).
    @Test func fortyThousandChildrenFreedOldestFirstLeaveTheListQuickly() {
        let root = Container(name: "app")
        var children = (0..<40_000).map { root.makeChild(name: "request-\($0)") }
        children.reverse()
        let started = ContinuousClock.now
        while !children.isEmpty { children.removeLast() }  // the oldest first
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(10 * watchdogScale), "\(elapsed)")
        #expect(root.children.isEmpty)
    }
}
