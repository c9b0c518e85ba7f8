import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Nothing that can hold the last reference to a container or an instance is released while
/// an engine lock is held: a deinit may resolve, and a resolve takes those locks. Debug builds
/// check it (an engine lock held when a container's deinit runs stops the test process, and a
/// thread that takes a lock it holds stops with a message instead of hanging); these tests
/// make the races that would do it.
@Suite(.serialized) struct DeinitOutsideLocksTests {
    final class Handler: Sendable {}
    final class PerRequest: Sendable {}

    /// A resolve through A's link builds the collaborator B's singleton (published when the
    /// resolve ends: it has a block) while another thread
    /// drops B's last outside reference: B's deinit (which releases an instance whose deinit
    /// resolves) runs on whichever thread lets B go, never under a lock. Rounds of two threads,
    /// each bounded by a watchdog.
    @Test(arguments: [false, true])
    func aCollaboratorDroppedWhileAResolveThroughTheLinkFinishesIsFreedOutsideLocks(withShutdownHook: Bool) async {
        // On a thread of its own: the rounds block and spin, which must not hold a thread of
        // the cooperative pool (two on two cores) that other suites' tasks need meanwhile.
        let (report, resolved, rounds) = await runOnNewThread {
            Self.dropCollaboratorsDuringResolves(withShutdownHook: withShutdownHook)
        }
        report.expectNoFailures("rounds that did not finish (a deadlock)")
        #expect(resolved == rounds, "every freed instance's deinit resolved")
    }

    /// The rounds: the ones that did not finish, how many deinits resolved, how many rounds.
    private static func dropCollaboratorsDuringResolves(withShutdownHook: Bool) -> (RoundsReport, Int, Int) {
        let home = Container(name: "home")
        home.register(PerRequest.self, lifetime: .perContainer) { _ in PerRequest() }
        let resolvedInDeinit = Counter()
        let rounds = watchdogScale > 1 ? 300 : 1_500  // fewer under a sanitizer, which slows each round tenfold
        let report = runRounds(rounds, stopAfter: 3) { round in
            let a = Container(name: "a")
            // The test keeps no reference to B but this one, which the second thread drops.
            let b = Guarded<Container?>(
                collaborator(of: a, home: home, resolved: resolvedInDeinit, withShutdownHook: withShutdownHook))
            // Both threads start together; B is dropped after a delay that sweeps the resolve.
            let delay = (round * 7) % 400
            let start = Rendezvous()
            let finished = runOnThreads(2, timeout: 10) { index in
                _ = index == 0 ? start.arriveFirst() : start.arriveSecond()
                if index == 0 {
                    _ = try? a.resolve(Handler.self)
                } else {
                    var spin = 0
                    for step in 0..<(delay * 8) { spin &+= step }
                    b.withLock { $0 = nil }
                    withExtendedLifetime(spin) {}
                }
            }
            return finished ? [] : ["did not finish"]
        }
        return (report, resolvedInDeinit.value, rounds)
    }

    /// B, linked from `a`, with a cached instance whose deinit resolves and a singleton not
    /// built yet.
    private static func collaborator(of a: Container, home: Container, resolved: Counter, withShutdownHook: Bool)
        -> Container
    {
        let b = Container(name: "b")
        // A cached instance whose deinit resolves a `perContainer` instance in a new child of
        // `home` (a build, which takes the coordinator's lock).
        b.register(DeinitHook.self, lifetime: .singleton) { _ in
            DeinitHook {
                if (try? home.makeChild(name: "request").resolve(PerRequest.self)) != nil { resolved.increment() }
            }
        }
        // A block makes the instance incomplete until its resolve ends, so it is published at
        // the end, when the resolving thread no longer holds B but through the weak link.
        let handler = b.register(Handler.self, lifetime: .singleton) { _ in Handler() }.onResolved { _, _ in }
        if withShutdownHook { handler.onShutdown { _ in } }
        _ = try? b.resolve(DeinitHook.self)
        a.collaborate(with: b)
        return b
    }
}
