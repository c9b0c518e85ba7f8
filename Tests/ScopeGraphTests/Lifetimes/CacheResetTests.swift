import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// A service whose instances the cache-reset tests tell apart and watch through weak references.
private protocol Account: AnyObject, Sendable {}

/// A cached service: each instance knows which factory run built it.
private final class UserSession: Account {
    let run: Int
    init(run: Int) { self.run = run }
}

/// A service built from a `UserSession`, to see what it keeps after a reset.
private final class ProfileStore: Sendable {
    let session: UserSession
    init(session: UserSession) { self.session = session }
}

/// Registers `UserSession` with `lifetime` (and `tag`) in `container`, counting factory runs.
@discardableResult
private func registerSession(
    in container: Container, tag: ServiceTag? = nil, lifetime: Lifetime, runs: Counter
) -> Registration<UserSession> {
    container.register(UserSession.self, tag: tag, lifetime: lifetime) { _ in UserSession(run: runs.increment()) }
}

/// An "app" container with a child "feature", and in the app a singleton session tagged
/// `singletonTag` and a `perContainer` one tagged `scopedTag`, whose builds `runs` counts.
private func appAndFeatureWithSessions(singletonTag: ServiceTag, scopedTag: ServiceTag) -> (
    app: Container, feature: Container, runs: Counter
) {
    let app = Container(name: "app")
    let feature = app.makeChild(name: "feature")
    let runs = Counter()
    registerSession(in: app, tag: singletonTag, lifetime: .singleton, runs: runs)
    registerSession(in: app, tag: scopedTag, lifetime: .perContainer, runs: runs)
    return (app, feature, runs)
}

/// `Container.resetCachedInstances()`, `resetCachedInstances(lifetime:)` and
/// `Registration.resetCachedInstances()`: cached instances go, registrations stay.
@Suite struct CacheResetTests {
    // MARK: Container.resetCachedInstances()

    @Test func resettingAContainerDropsItsSingletonAndTheNextResolveBuildsAfresh() throws {
        let app = Container(name: "app")
        let runs = Counter()
        registerSession(in: app, lifetime: .singleton, runs: runs)
        var first: UserSession? = try app.resolve(UserSession.self)
        let watched = WeakProbe(first)
        #expect(try app.resolve(UserSession.self) === first)

        app.resetCachedInstances()
        first = nil

        #expect(watched.isFreed, "the container must release the dropped instance")
        let second = try app.resolve(UserSession.self)
        #expect(second.run == 2)
        #expect(try app.resolve(UserSession.self) === second)
    }

    @Test func resettingKeepsRegistrationsForwardsAndOnResolvedBlocks() throws {
        let app = Container(name: "app")
        let runs = Counter()
        let blocks = Counter()
        registerSession(in: app, lifetime: .singleton, runs: runs)
            .implements((any Account).self)
            .onResolved { _, _ in blocks.increment() }
        let first = try app.resolve((any Account).self)

        app.resetCachedInstances()

        let second = try app.resolve((any Account).self)
        #expect(second !== first)
        #expect(try app.resolve(UserSession.self) === second, "the forward and the type share the new instance")
        #expect(blocks.value == 2, "the new instance runs its blocks, once")
    }

    @Test func resettingAContainerDropsThePerContainerInstancesCachedThereIncludingAnAncestorsRegistrations()
        throws
    {
        let app = Container(name: "app")
        let feature = app.makeChild(name: "feature")
        let runs = Counter()
        registerSession(in: app, lifetime: .perContainer, runs: runs)
        // Three resolves: the second and third are answered by memoized lookups.
        var first: UserSession? = try feature.resolve(UserSession.self)
        #expect(try feature.resolve(UserSession.self) === first)
        #expect(try feature.resolve(UserSession.self) === first)
        let watched = WeakProbe(first)

        feature.resetCachedInstances()
        first = nil

        #expect(watched.isFreed)
        let second = try feature.resolve(UserSession.self)
        #expect(second.run == 2)
        #expect(try feature.resolve(UserSession.self) === second)
    }

    @Test func resettingAContainerLeavesTheCachesOfOtherContainersAlone() throws {
        let (app, feature, _) = appAndFeatureWithSessions(singletonTag: "shared", scopedTag: "mine")
        let rootSingleton = try feature.resolve(UserSession.self, tag: "shared")
        let childInstance = try feature.resolve(UserSession.self, tag: "mine")
        let rootInstance = try app.resolve(UserSession.self, tag: "mine")

        feature.resetCachedInstances()
        #expect(try feature.resolve(UserSession.self, tag: "shared") === rootSingleton, "the root owns its singleton")
        #expect(try app.resolve(UserSession.self, tag: "mine") === rootInstance)
        #expect(try feature.resolve(UserSession.self, tag: "mine") !== childInstance)

        let childAgain = try feature.resolve(UserSession.self, tag: "mine")
        app.resetCachedInstances()
        #expect(try feature.resolve(UserSession.self, tag: "mine") === childAgain, "a child's instance is the child's")
        #expect(try feature.resolve(UserSession.self, tag: "shared") !== rootSingleton)
        #expect(try app.resolve(UserSession.self, tag: "mine") !== rootInstance)
    }

    @Test func aWeakSingletonStillHeldElsewhereIsReplacedAfterAReset() throws {
        let app = Container(name: "app")
        let runs = Counter()
        registerSession(in: app, lifetime: .weakSingleton, runs: runs)
        let held = try app.resolve(UserSession.self)

        app.resetCachedInstances()

        let next = try app.resolve(UserSession.self)
        #expect(next !== held, "the container no longer hands out the old instance")
        #expect(held.run == 1)
        #expect(try app.resolve(UserSession.self) === next)
    }

    @Test func anEagerSingletonDroppedByAResetIsBuiltAgainByTheNextBootstrap() throws {
        let app = Container(name: "app")
        let runs = Counter()
        registerSession(in: app, lifetime: .eagerSingleton, runs: runs)
        try app.bootstrap()
        try app.bootstrap()
        #expect(runs.value == 1)

        app.resetCachedInstances()
        #expect(runs.value == 1, "a reset builds nothing")
        try app.bootstrap()

        #expect(runs.value == 2)
        #expect(try app.resolve(UserSession.self).run == 2)
    }

    @Test func aResetRunsNoShutdownHookAndShutdownSkipsTheDroppedInstance() async throws {
        let app = Container(name: "app")
        let recorder = ShutdownRecorder()
        app.registerShutdownProbe("session", recorder: recorder)
        app.registerShutdownProbe("scoped", lifetime: .perContainer, recorder: recorder)
        var dropped: ShutdownProbe? = try app.resolveProbe("session")
        _ = try app.resolveProbe("scoped")
        let watched = WeakProbe(dropped)

        app.resetCachedInstances()
        dropped = nil
        #expect(recorder.count == 0)
        #expect(watched.isFreed, "a dropped instance is not kept alive for its hook")

        let current = try app.resolveProbe("session")
        try await app.shutdown()
        #expect(recorder.recorded(exactly: [current]), "\(recorder.labels)")
    }

    @Test func resolvesRacingWithResetsAlwaysGetAnInstanceAndAResetAfterwardsStillWorks() throws {
        let (app, feature, _) = appAndFeatureWithSessions(singletonTag: "singleton", scopedTag: "scoped")
        let failures = Counter()
        runOnThreads(4) { index in
            for _ in 0..<200 {
                if index == 0 {
                    feature.resetCachedInstances()
                    app.resetCachedInstances()
                } else {
                    do {
                        _ = try feature.resolve(UserSession.self, tag: "singleton")
                        _ = try feature.resolve(UserSession.self, tag: "scoped")
                    } catch {
                        failures.increment()
                    }
                }
            }
        }
        #expect(failures.value == 0)

        let before = try feature.resolve(UserSession.self, tag: "scoped")
        feature.resetCachedInstances()
        #expect(try feature.resolve(UserSession.self, tag: "scoped") !== before)
    }

    // MARK: Container.resetCachedInstances(lifetime:)

    @Test(arguments: [Lifetime.singleton, .weakSingleton, .eagerSingleton, .perContainer])
    func resettingOneLifetimeDropsOnlyThatLifetimesInstances(_ reset: Lifetime) throws {
        let app = Container(name: "app")
        let runs = Counter()
        let lifetimes: [Lifetime] = [.singleton, .weakSingleton, .eagerSingleton, .perContainer]
        for lifetime in lifetimes {
            registerSession(in: app, tag: ServiceTag("\(lifetime)"), lifetime: lifetime, runs: runs)
        }
        // Held here, so that the weak singleton stays cached until it is reset.
        let before = try lifetimes.map { try app.resolve(UserSession.self, tag: ServiceTag("\($0)")) }

        app.resetCachedInstances(lifetime: reset)

        for (lifetime, instance) in zip(lifetimes, before) {
            let now = try app.resolve(UserSession.self, tag: ServiceTag("\(lifetime)"))
            #expect((now === instance) == (lifetime != reset), "\(lifetime) after resetting \(reset)")
        }
    }

    @Test(arguments: [Lifetime.unique, .graph])
    func resettingALifetimeThatCachesNothingKeepsEveryCachedInstance(_ reset: Lifetime) throws {
        let app = Container(name: "app")
        let runs = Counter()
        registerSession(in: app, lifetime: .singleton, runs: runs)
        registerSession(in: app, tag: "uncached", lifetime: reset, runs: runs)
        let singleton = try app.resolve(UserSession.self)

        app.resetCachedInstances(lifetime: reset)

        #expect(try app.resolve(UserSession.self) === singleton)
        #expect(try app.resolve(UserSession.self, tag: "uncached").run > singleton.run)
    }

    // MARK: Registration.resetCachedInstances()

    @Test func resettingARegistrationDropsItsPerContainerInstancesInEveryContainer() throws {
        let app = Container(name: "app")
        let catalog = app.makeChild(name: "catalog")
        let cart = app.makeChild(name: "cart")
        let runs = Counter()
        let session = registerSession(in: app, lifetime: .perContainer, runs: runs)
        registerSession(in: app, tag: "other", lifetime: .perContainer, runs: runs)
        var instances: [UserSession]? = try [app, catalog, cart].map { try $0.resolve(UserSession.self) }
        let watched = instances!.map { WeakProbe($0) }
        let kept = try cart.resolve(UserSession.self, tag: "other")

        session.resetCachedInstances()
        instances = nil

        #expect(watched.allSatisfy { $0.isFreed })
        #expect(try cart.resolve(UserSession.self, tag: "other") === kept, "another registration keeps its instances")
        #expect(try catalog.resolve(UserSession.self).run > kept.run)
    }

    /// A registration keeps track of the containers holding its `perContainer` instances,
    /// pruning the ones that are gone now and then: after many came and went, and after live
    /// ones built their instance again (a container reset), it still reaches every live one.
    @Test func resettingARegistrationReachesEveryLiveHolderAfterManyCameAndWent() throws {
        let app = Container(name: "app")
        let runs = Counter()
        let session = registerSession(in: app, lifetime: .perContainer, runs: runs)
        var kept: [Container] = []
        for index in 0..<60 {
            let child = app.makeChild(name: "request \(index)")
            _ = try child.resolve(UserSession.self)
            if index % 3 == 0 { kept.append(child) }  // the others go at the end of the loop
        }
        for child in kept.prefix(5) {
            child.resetCachedInstances()
            _ = try child.resolve(UserSession.self)
        }
        var instances: [UserSession]? = try kept.map { try $0.resolve(UserSession.self) }
        let watched = instances!.map { WeakProbe($0) }

        session.resetCachedInstances()
        instances = nil

        #expect(watched.count == 20)
        #expect(watched.allSatisfy { $0.isFreed })
    }

    @Test func resettingARegistrationDropsItsSingletonAndNotTheOthers() throws {
        let app = Container(name: "app")
        let runs = Counter()
        let session = registerSession(in: app, lifetime: .singleton, runs: runs)
            .implements((any Account).self)
        registerSession(in: app, tag: "admin", lifetime: .singleton, runs: runs)
        var first: UserSession? = try app.resolve(UserSession.self)
        let watched = WeakProbe(first)
        let admin = try app.resolve(UserSession.self, tag: "admin")

        session.resetCachedInstances()
        first = nil

        #expect(watched.isFreed)
        #expect(try app.resolve(UserSession.self, tag: "admin") === admin)
        let second = try app.resolve(UserSession.self)
        #expect(try app.resolve((any Account).self) === second, "the forwarded type gets the new instance")
    }

    @Test func instancesBuiltFromAResetRegistrationKeepWhatTheyWereGiven() throws {
        let app = Container(name: "app")
        let runs = Counter()
        let session = registerSession(in: app, lifetime: .singleton, runs: runs)
        app.register(ProfileStore.self, lifetime: .singleton) { r in ProfileStore(session: try r.resolve()) }
        let store = try app.resolve(ProfileStore.self)

        session.resetCachedInstances()

        #expect(try app.resolve(ProfileStore.self) === store)
        #expect(try app.resolve(UserSession.self) !== store.session)
    }

    @Test func resettingARemovedOrUncachedRegistrationDoesNothing() throws {
        let app = Container(name: "app")
        let runs = Counter()
        let removed = registerSession(in: app, lifetime: .singleton, runs: runs)
        app.remove(removed)
        let graph = registerSession(in: app, tag: "graph", lifetime: .graph, runs: runs)
        let replaced = registerSession(in: app, tag: "kept", lifetime: .singleton, runs: runs)
        registerSession(in: app, tag: "kept", lifetime: .singleton, runs: runs)
        let kept = try app.resolve(UserSession.self, tag: "kept")

        removed.resetCachedInstances()
        graph.resetCachedInstances()
        replaced.resetCachedInstances()

        #expect(try app.resolve(UserSession.self, tag: "kept") === kept, "the replacement keeps its instance")
        #expect(try app.resolveIfRegistered(UserSession.self) == nil, "a reset brings nothing back")
    }

    // MARK: A reset that overlaps a build

    /// A reset drops what is published when it runs: the session, published when its factory
    /// returned, is dropped; the store, published after the reset, stays (built from that
    /// session, which the next resolve of the session no longer gets).
    @Test func aResetDuringASingletonsBuildDropsWhatWasPublishedAndKeepsWhatIsPublishedAfter() async throws {
        let app = Container(name: "app")
        let runs = Counter()
        let gate = ShutdownGate()
        registerSession(in: app, lifetime: .singleton, runs: runs)
        app.register(ProfileStore.self, lifetime: .singleton) { r in
            // The session's factory has returned: it is published; the store is not yet.
            let session = try r.resolve(UserSession.self)
            gate.arriveAndWait()
            return ProfileStore(session: session)
        }
        let outcome = try await withAsyncWatchdog(seconds: 30) {
            let building = Task { await runOnNewThread { Result { try app.resolve(ProfileStore.self) } } }
            await gate.arrived()
            app.resetCachedInstances()
            gate.open()
            let store = try await building.value.get()
            return (store, try app.resolve(ProfileStore.self), try app.resolve(UserSession.self))
        }
        let (store, storeAfter, sessionAfter) = try #require(outcome)
        #expect(storeAfter === store, "the store was published after the reset")
        #expect(sessionAfter !== store.session, "the session was published before the reset")
        #expect(runs.value == 2)
    }

    // MARK: The guide's example

    @Test func loggingOutDropsTheSessionInstancesAndKeepsTheWiring() throws {
        let app = Container(name: "app")
        let session = app.makeChild(name: "session")
        let runs = Counter()
        registerSession(in: session, lifetime: .singleton, runs: runs)
        session.register(ProfileStore.self, lifetime: .singleton) { r in ProfileStore(session: try r.resolve()) }
        let before = try session.resolve(ProfileStore.self)

        session.resetCachedInstances()

        let after = try session.resolve(ProfileStore.self)
        #expect(after !== before)
        #expect(after.session !== before.session)
        #expect(after.session === (try session.resolve(UserSession.self)))
    }
}
