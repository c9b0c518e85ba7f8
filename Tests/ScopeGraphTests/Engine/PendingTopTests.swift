import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// A top-level request on the fast path begins no resolve (`Engine/FastPath/FastConstruction.swift`,
/// "The pending top-level construction"): its thread keeps the construction pending, and the
/// first request inside its factory makes the resolve, with the construction as its first
/// frame. Everything a resolve does must still hold for what the factory asks: cycles through
/// the top construction, errors with its path, `graph` sharing, blocks before the top-level
/// resolve returns; a resolver used elsewhere starts its own resolve. Each test makes its top-level request as `Container.resolve` does
/// when the probe hands it to the fast path (`FastConstruction.construct`), so that it takes
/// the fast path whatever the memo holds and with the debug switch off too; the requests inside
/// the factories take whichever path the probe allows.
@Suite struct PendingTopTests {
    final class Top: Sendable {}
    final class Leaf: Sendable {}
    final class Shared: Sendable {}

    /// What a factory saw of its thread: whether a resolve was bound, whether a construction
    /// was pending.
    struct Seen: Equatable {
        var bound: Bool
        var pending: Bool

        static var now: Seen {
            Seen(bound: ThreadState.current.context != nil, pending: ThreadState.current.pendingEntry != nil)
        }
    }

    /// `container.resolve(T.self)` on the fast path: its registration's construction,
    /// specialized for `T`, as a top-level request.
    private static func resolveOnFastPath<T>(_ type: T.Type, from container: Container) throws -> T {
        let entry = try container.plainEntry(of: T.self)
        return try #require(
            try FastConstruction.construct(entry, from: container, on: ThreadState.currentUnmanaged))
    }

    /// The thread has no resolve and nothing pending.
    private static func expectIdleThread(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Seen.now == Seen(bound: false, pending: false), sourceLocation: sourceLocation)
    }

    @Test func aTopLevelFactoryThatResolvesNothingRunsWithoutAResolve() throws {
        let container = Container(name: "app")
        let seen = Guarded<[Seen]>([])
        container.register(Leaf.self, lifetime: .unique) { _ in Leaf() }
        container.register(Top.self, lifetime: .unique) { r in
            let before = Seen.now
            _ = try r.resolve(Leaf.self)
            seen.withLock { $0 = [before, .now] }
            return Top()
        }
        _ = try Self.resolveOnFastPath(Top.self, from: container)
        #expect(
            seen.current == [Seen(bound: false, pending: true), Seen(bound: true, pending: true)],
            "pending before the first request inside the factory, a bound resolve after it")
        Self.expectIdleThread()
    }

    /// The probe declines only for a scope of the requesting task: while another thread holds
    /// a scope open (a trace), this thread's requests still take the fast path.
    @Test(.enabled(if: FastConstruction.isEnabled, "the fast path is off"))
    func aScopeOnAnotherThreadLeavesThisThreadsRequestsOnTheFastPath() throws {
        let container = Container(name: "app")
        let seen = Guarded<Seen?>(nil)
        container.register(Top.self, lifetime: .unique) { _ in
            seen.withLock { $0 = .now }
            return Top()
        }
        for _ in 0..<3 { _ = try container.resolve(Top.self) }  // memoizes the lookup
        let (entered, leave) = (Rendezvous(), Rendezvous())
        let tracing = StartedThread {
            Container.withTrace({ _ in }) {
                _ = entered.arriveFirst()
                _ = leave.arriveFirst()
            }
        }
        try #require(entered.arriveSecond(timeout: 10 * watchdogScale), "the trace did not begin")
        #expect(ScopeActivity.mayBeActive)
        _ = try container.resolve(Top.self)
        #expect(seen.current == Seen(bound: false, pending: true), "the request took the general path")
        #expect(leave.arriveSecond(timeout: 10 * watchdogScale))
        #expect(tracing.wait(timeout: 10))
        Self.expectIdleThread()
    }

    @Test func aTopLevelFactoryThatResolvesItselfDirectlyIsACycleWithItsPath() throws {
        let container = Container(name: "app")
        defer { container.removeAll() }  // the factory captures the container
        let depth = Guarded(0)
        container.register(Top.self, lifetime: .unique) { _ in
            let level = depth.withLock {
                $0 += 1
                return $0
            }
            defer { depth.withLock { $0 -= 1 } }
            // Bounded, so that a broken cycle check fails the test instead of overflowing.
            if level < 4 { _ = try container.resolve(Top.self) }
            return Top()
        }
        let error = try #require(throws: ResolutionError.self) {
            _ = try Self.resolveOnFastPath(Top.self, from: container)
        }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["Top", "Top"])
        Self.expectIdleThread()
    }

    @Test func aTopLevelFactoryThatThrowsBeforeAnyRequestIsReportedWithItsPathAndContainer() throws {
        let container = Container(name: "app")
        let fail = Guarded(false)
        container.register(Top.self, lifetime: .unique) { _ in
            if fail.current { throw Boom("top") }
            return Top()
        }
        fail.withLock { $0 = true }
        let error = try #require(throws: ResolutionError.self) {
            _ = try Self.resolveOnFastPath(Top.self, from: container)
        }
        #expect(error.kind.underlyingError as? Boom == Boom("top"))
        #expect(error.pathDescriptions == ["Top"])
        Self.expectIdleThread()
        fail.withLock { $0 = false }
        _ = try Self.resolveOnFastPath(Top.self, from: container)
    }

    /// The resolve made for a pending construction knows where the top-level request started:
    /// a key missing from another tree is suggested from the request's own.
    @Test func aKeyMissingInsideATopLevelFactoryIsSuggestedFromTheTreeTheRequestStartedIn() throws {
        let app = Container(name: "app")
        let other = Container(name: "other")
        app.register(Leaf.self, lifetime: .unique) { _ in Leaf() }
        app.register(Top.self, lifetime: .unique) { _ in
            _ = try other.resolve(Leaf.self)
            return Top()
        }
        let error = try #require(throws: ResolutionError.self) { _ = try Self.resolveOnFastPath(Top.self, from: app) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.suggestions.contains { $0.contains("'app'") }, "\(error.suggestions)")
        Self.expectIdleThread()
    }

    /// Requests through the factory's resolver and directly from the container join one
    /// resolve: they share its `graph` instance; the next top-level request gets a new one.
    @Test func requestsInsideATopLevelFactoryShareTheResolvesGraphInstances() throws {
        let container = Container(name: "app")
        defer { container.removeAll() }  // the factory captures the container
        let seen = Guarded<[Shared]>([])
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        container.register(Top.self, lifetime: .unique) { r in
            let throughResolver = try r.resolve(Shared.self)
            let direct = try container.resolve(Shared.self)
            seen.withLock { $0 += [throughResolver, direct] }
            return Top()
        }
        seen.withLock { $0 = [] }
        _ = try Self.resolveOnFastPath(Top.self, from: container)
        _ = try Self.resolveOnFastPath(Top.self, from: container)
        let instances = seen.current
        try #require(instances.count == 4)
        #expect(instances[0] === instances[1], "one resolve, one graph instance")
        #expect(instances[2] !== instances[0], "the next resolve shared the last one's graph instance")
        Self.expectIdleThread()
    }

    @Test func aBlockOfAnInstanceBuiltInsideATopLevelFactoryRunsBeforeTheResolveReturns() throws {
        let container = Container(name: "app")
        let blockRuns = Counter()
        container.register(Leaf.self, lifetime: .unique) { _ in Leaf() }.onResolved { _, _ in blockRuns.increment() }
        container.register(Top.self, lifetime: .unique) { r in
            _ = try r.resolve(Leaf.self)
            return Top()
        }
        let before = blockRuns.value
        _ = try Self.resolveOnFastPath(Top.self, from: container)
        #expect(blockRuns.value == before + 1)
        Self.expectIdleThread()
    }

    /// A resolver handed to another thread while the factory runs, or kept after it returned,
    /// starts a resolve of its own: it shares no `graph` instance with the factory's.
    @Test func aTopLevelFactorysResolverUsedElsewhereStartsItsOwnResolve() throws {
        let container = Container(name: "app")
        let kept = Guarded<Resolver?>(nil)
        // The kept resolver holds the container, whose factory holds `kept`: broken at the end.
        defer { kept.withLock { $0 = nil } }
        let elsewhere = Guarded<Shared?>(nil)
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        container.register(Top.self, lifetime: .unique) { r in
            let mine = try r.resolve(Shared.self)
            let finished = runOnThreads(1) { _ in elsewhere.withLock { $0 = try? r.resolve(Shared.self) } }
            #expect(finished)
            #expect(elsewhere.current != nil && elsewhere.current !== mine)
            kept.withLock { $0 = r }
            return Top()
        }
        _ = try Self.resolveOnFastPath(Top.self, from: container)
        let resolver = try #require(kept.current)
        #expect(try resolver.resolve(Shared.self) !== resolver.resolve(Shared.self))
        Self.expectIdleThread()
    }
}
