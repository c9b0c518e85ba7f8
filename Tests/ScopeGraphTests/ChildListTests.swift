import Foundation
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
        let dropped = Locked<Container?>(root.makeChild(name: "dropped"))
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
}
