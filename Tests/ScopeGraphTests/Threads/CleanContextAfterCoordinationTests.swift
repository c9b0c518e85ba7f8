import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// A thread reuses its finished resolve's context for its next top-level resolve, also after
/// that resolve took part in cross-thread coordination (a wait, a group sharing a cycle, blocks
/// run by another thread), once nothing else references it. Each test makes a thread's
/// resolves take part in coordination and then checks that the thread's next resolves start
/// clean: their own `graph` instances, their own paths in errors, no cycle carried over, and
/// the coordination of the next round unaffected.
@Suite struct CleanContextAfterCoordinationTests: ServiceFixtures {
    final class Left: @unchecked Sendable {
        var right: Right?
    }
    final class Right: @unchecked Sendable {
        // Weak: the pair is no reference cycle (the singletons' slots hold both).
        weak var left: Left?
    }
    final class Needs: Sendable {}
    final class Missing: Sendable {}
    final class Ping: Sendable {}
    final class Pong: Sendable {}

    /// The services each round's threads resolve after their coordinated resolve, in a
    /// container that lives for the whole test (its registrations' serials stay the same, so
    /// state carried over from an earlier resolve would match them).
    static func lastingContainer() -> Container {
        let lasting = Container(name: "lasting")
        lasting.register(Shared.self, lifetime: .graph) { _ in Shared() }
        lasting.register(Pair.self, lifetime: .unique) { r in
            Pair(first: try r.resolve(), second: try r.resolve())
        }
        lasting.register(Needs.self, lifetime: .unique, needing: Missing.self) { Needs() }
        lasting.register(Pong.self, lifetime: .unique) { _ in Pong() }
        lasting.register(Ping.self, lifetime: .unique) { _ in Ping() }.onResolved { r, _ in
            _ = try r.resolve(Pong.self)
        }
        return lasting
    }

    /// What a thread checks after its coordinated resolve: appends a description of each
    /// wrong answer to `failures`. `previous` is the `graph` instance of its last check.
    static func checkFreshResolves(
        in lasting: Container, round: Int, previous: inout Shared?, failures: Guarded<[String]>
    ) {
        func fail(_ text: String) { failures.withLock { $0.append("round \(round): \(text)") } }
        do {
            let pair = try lasting.resolve(Pair.self)
            if pair.first !== pair.second { fail("a graph instance was not shared within its resolve") }
            if let previous, previous === pair.first { fail("a graph instance of an earlier resolve came back") }
            previous = pair.first
            _ = try lasting.resolve(Ping.self)
            _ = try lasting.resolve(Ping.self)
        } catch {
            fail("\(error)")
        }
        do {
            _ = try lasting.resolve(Needs.self)
            fail("a missing dependency resolved")
        } catch let error as ResolutionError {
            if error.kind != .notRegistered { fail("\(error.kind) instead of notRegistered") }
            let path = error.path.map(\.typeName)
            if path != ["Needs", "Missing"] { fail("the path \(path) carries keys of another resolve") }
        } catch {
            fail("\(error)")
        }
    }

    /// Runs `rounds` rounds on `threads` threads: in each, the threads meet at a barrier, each
    /// runs `body(index, round)` (what it throws is a failure of that round), then checks that
    /// its next resolves in `lasting` start clean (`checkFreshResolves`). Bounded by a watchdog.
    static func coordinatedRounds(
        _ rounds: Int, threads: Int, lasting: Container, failures: Guarded<[String]>,
        _ body: @escaping @Sendable (_ index: Int, _ round: Int) throws -> Void
    ) async {
        let barriers = (0..<rounds).map { _ in Reliability.Barrier(count: threads) }
        await runOnThreads(threads, timeout: 60) { index in
            var previous: Shared?
            for round in 0..<rounds {
                guard barriers[round].arriveAndWait() else {
                    failures.withLock { $0.append("round \(round): the barrier timed out") }
                    return
                }
                do {
                    try body(index, round)
                } catch {
                    failures.withLock { $0.append("round \(round): \(error)") }
                }
                checkFreshResolves(in: lasting, round: round, previous: &previous, failures: failures)
            }
        }
    }

    /// Two long-lived threads start at the two ends of a property-injection cycle of
    /// singletons, each round in a fresh container: they share a group, one thread runs both
    /// resolves' blocks, and they publish together. Then each thread resolves more on the same
    /// thread (reusing its context when nothing else references it). Every round gives one
    /// consistent pair, and every later resolve is right. Bounded by a watchdog.
    @Test func threadsThatSharedACycleGoOnResolvingFromACleanContext() async {
        let rounds = 60
        let lasting = Self.lastingContainer()
        let containers = (0..<rounds).map { round -> Container in
            let container = Container(name: "round-\(round)")
            container.register(Left.self, lifetime: .singleton) { _ in Left() }.onResolved { r, left in
                left.right = try r.resolve(Right.self)
            }
            container.register(Right.self, lifetime: .singleton) { _ in Right() }.onResolved { r, right in
                right.left = try r.resolve(Left.self)
            }
            return container
        }
        let failures = Guarded<[String]>([])
        let pairs = Guarded<[Int: [ObjectIdentifier]]>([:])
        await Self.coordinatedRounds(rounds, threads: 2, lasting: lasting, failures: failures) { index, round in
            let left: Left
            if index == 0 {
                left = try containers[round].resolve(Left.self)
            } else {
                guard let found = try containers[round].resolve(Right.self).left else {
                    failures.withLock { $0.append("round \(round): a Right without its Left") }
                    return
                }
                left = found
            }
            guard let right = left.right, right.left === left else {
                failures.withLock { $0.append("round \(round): an inconsistent pair") }
                return
            }
            pairs.withLock { $0[round, default: []].append(ObjectIdentifier(left)) }
        }
        #expect(failures.current.isEmpty)
        #expect(pairs.current.count == rounds)
        #expect(pairs.current.values.allSatisfy { $0.count == 2 && Set($0).count == 1 })
    }

    /// Threads first-resolve one slow singleton: one builds it while the others wait for it
    /// (each waiter records the path it waited on), and the builder's context is referenced by
    /// the waiters until they wake. Every thread gets the one instance, built once; each
    /// thread's next resolves, on the same thread, start clean, round after round: the waits of
    /// one round leave nothing in the next.
    @Test func threadsThatWaitedForAnotherThreadsBuildResolveFromACleanContext() async {
        let rounds = 40
        let threads = 3
        let lasting = Self.lastingContainer()
        let runs = (0..<rounds).map { _ in Counter() }
        let containers = (0..<rounds).map { round -> Container in
            let container = Container(name: "round-\(round)")
            container.register(Slow.self, lifetime: .singleton) { _ in
                runs[round].increment()
                Thread.sleep(forTimeInterval: 0.001)
                return Slow()
            }
            // Waiting goes through a factory, so the waiter's path has a key of its own.
            container.register(Pair.self, lifetime: .unique) { r in
                _ = try r.resolve(Slow.self)
                return Pair(first: Shared(), second: Shared())
            }
            return container
        }
        let seen = Guarded<[[ObjectIdentifier]]>(Array(repeating: [], count: rounds))
        let failures = Guarded<[String]>([])
        await Self.coordinatedRounds(rounds, threads: threads, lasting: lasting, failures: failures) { _, round in
            _ = try containers[round].resolve(Pair.self)
            let slow = try containers[round].resolve(Slow.self)
            seen.withLock { $0[round].append(ObjectIdentifier(slow)) }
        }
        #expect(failures.current.isEmpty)
        #expect(runs.allSatisfy { $0.value == 1 })
        #expect(seen.current.allSatisfy { $0.count == threads && Set($0).count == 1 })
    }

    /// A `Provider` made during a resolve that took part in coordination, called later on the
    /// same thread outside any resolve: each call is a top-level resolve of its own (a new
    /// `graph` instance each time), whatever context the thread's next resolves use. Called
    /// inside a later resolve on that thread, it joins that resolve.
    @Test func aProviderFromAnEarlierResolveDoesNotJoinAResolveThatReusedItsContext() throws {
        final class Keeper: Sendable {
            let provider: Provider<Shared>
            init(provider: Provider<Shared>) { self.provider = provider }
        }
        let container = Container(name: "app")
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        // A singleton: building it takes part in coordination.
        container.register(Keeper.self, lifetime: .singleton) { r in Keeper(provider: try r.resolve()) }
        let keeper = try container.resolve(Keeper.self)
        let first = try keeper.provider()
        let second = try keeper.provider()
        #expect(first !== second)
        // A pair of the shared instance, directly and through the provider.
        container.register(Pair.self, lifetime: .unique) { r in
            Pair(first: try r.resolve(), second: try keeper.provider())
        }
        for _ in 0..<3 {
            let pair = try container.resolve(Pair.self)
            #expect(pair.first === pair.second)
            #expect(pair.first !== first && pair.first !== second)
        }
    }
    /// A resolve that made a `Lazy` or `Provider` (which reference its context weakly, giving
    /// the context a side table) does not leave its context as the thread's spare: a spare
    /// lives until its thread exits, and LeakSanitizer reports the side table of an object that
    /// outlived its last weak reference as leaked (the object's pointer to it is encoded), which
    /// failed the CI's AddressSanitizer pass. A resolve that made none keeps its context.
    @Test(arguments: [false, true])
    func aContextThatHandedOutADeferredValueIsNotKeptAsItsThreadsSpare(coordinated: Bool) async {
        final class Keeper: Sendable {
            let lazy: Lazy<Shared>?
            init(lazy: Lazy<Shared>? = nil) { self.lazy = lazy }
        }
        let outcome = await runOnNewThread { () -> (plainKept: Bool, deferredKept: Bool) in
            let container = Container(name: "app")
            let lifetime: Lifetime = coordinated ? .singleton : .unique
            let contexts = Guarded<[ObjectIdentifier]>([])
            container.register(Shared.self, lifetime: .graph) { _ in Shared() }
            container.register(Keeper.self, tag: "plain", lifetime: lifetime) { _ in
                if let context = ResolutionContext.current {
                    contexts.withLock { $0.append(ObjectIdentifier(context)) }
                }
                return Keeper()
            }
            container.register(Keeper.self, tag: "deferred", lifetime: lifetime) { r in
                if let context = ResolutionContext.current {
                    contexts.withLock { $0.append(ObjectIdentifier(context)) }
                }
                return Keeper(lazy: try r.resolve(Lazy<Shared>.self))
            }
            func spareIsLast() -> Bool {
                guard let spare = ThreadState.current.spare, let last = contexts.current.last else { return false }
                return ObjectIdentifier(spare) == last
            }
            _ = try? container.resolve(Keeper.self, tag: "plain")
            let plainKept = spareIsLast()
            let keeper = try? container.resolve(Keeper.self, tag: "deferred")
            let deferredKept = spareIsLast()
            let made = keeper?.lazy != nil
            return (plainKept && made, deferredKept)
        }
        #expect(outcome.plainKept)
        #expect(!outcome.deferredKept)
    }
}
