import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// What an async factory resolves from its child tasks (`async let`, a task group) belongs to
/// the factory's resolve (a branch of it): it reads what that resolve is building instead of
/// waiting for its publication (which comes only after the factory returns), a constructor
/// cycle through a child task throws `.circularDependency` with its path, and what a child
/// builds is published, and its blocks run, when the resolve ends.
@Suite struct ChildTaskBranchTests {
    final class Store: Sendable {}
    final class Feed: Sendable {
        let store: Store
        init(_ store: Store) { self.store = store }
    }
    final class Screen: Sendable {
        let feeds: [Feed]
        let store: Store
        init(_ feeds: [Feed], _ store: Store) { (self.feeds, self.store) = (feeds, store) }
    }
    final class Left: Sendable {
        init(_ right: Right) {}
    }
    final class Right: Sendable {
        init(_ left: Left) {}
    }

    /// How a factory asks from a child task.
    enum Child: CaseIterable, Sendable, CustomTestStringConvertible {
        case asyncLet, taskGroup, containerInAsyncLet
        var testDescription: String {
            switch self {
            case .asyncLet: "async let through the resolver"
            case .taskGroup: "a task group through the resolver"
            case .containerInAsyncLet: "async let through the container"
            }
        }

        /// `count` feeds resolved from child tasks of the calling factory (two for `async let`),
        /// through its resolver or its resolver's container (not captured: a factory holding
        /// its own container would keep it alive).
        func feeds(_ count: Int, with resolver: Resolver) async throws -> [Feed] {
            switch self {
            case .asyncLet:
                async let first: Feed = resolver.resolveAsync()
                async let second: Feed = resolver.resolveAsync()
                return try await [first, second]
            case .taskGroup:
                return try await withThrowingTaskGroup(of: Feed.self) { group in
                    for _ in 0..<count { group.addTask { try await resolver.resolveAsync() } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            case .containerInAsyncLet:
                let container = resolver.container
                async let first: Feed = container.resolveAsync()
                async let second: Feed = container.resolveAsync()
                return try await [first, second]
            }
        }
    }

    /// A diamond: the screen's factory resolves two feeds in child tasks and the store itself;
    /// the feeds need the store too, which the screen's resolve is building when they ask. They
    /// get that store instead of waiting for it to be published (which would wait for the
    /// screen's factory, which waits for them); it is built once and published.
    @Test(arguments: Child.allCases, [false, true])
    func childTasksReadWhatTheirFactorysResolveIsBuilding(child: Child, asyncStore: Bool) async throws {
        let container = Container(name: "root")
        let builds = Counter()
        if asyncStore {
            container.register(Store.self, lifetime: .singleton) { _ in
                builds.increment()
                try await Task.sleep(for: .milliseconds(20))
                return Store()
            }
        } else {
            container.register(Store.self, lifetime: .singleton, counting: builds) { Store() }
        }
        container.register(Feed.self) { r in
            try await Task.sleep(for: .milliseconds(10))
            return Feed(try await r.resolveAsync())
        }
        container.register(Screen.self) { r in
            let store: Store = try await r.resolveAsync()
            return Screen(try await child.feeds(2, with: r), store)
        }
        let screen = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Screen.self) }
        guard let screen else { return }
        #expect(screen.feeds.count == 2)
        #expect(screen.feeds.allSatisfy { $0.store === screen.store })
        #expect(builds.value == 1)
        #expect(try container.resolve(Store.self) === screen.store)
    }

    /// Left's factory resolves Right in a child task, and Right's resolves Left: the cycle is
    /// reported with its path, for every lifetime, instead of waiting or recursing forever.
    @Test(arguments: [Lifetime.unique, .graph, .singleton, .weakSingleton, .perContainer])
    func aCycleThroughAChildTaskThrowsCircularDependencyWithItsPath(lifetime: Lifetime) async throws {
        let container = Container(name: "root")
        container.register(Left.self, lifetime: lifetime) { r in
            async let right: Right = r.resolveAsync()
            return Left(try await right)
        }
        container.register(Right.self, lifetime: lifetime) { r in
            await Task.yield()
            return Right(try await r.resolveAsync())
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) {
            await Result { try await container.resolveAsync(Left.self) }
        }
        guard let outcome else { return }
        #expect(outcome.resolutionError?.kind.caseName == "circularDependency", "\(outcomeName(outcome))")
        #expect(outcome.resolutionError?.pathDescriptions == ["Left", "Right", "Left"])
    }

    /// The same cycle one level deeper, through a task group in a child task's own factory.
    @Test func aCycleThroughNestedChildTasksThrowsCircularDependencyWithItsPath() async throws {
        let container = Container(name: "root")
        container.register(Screen.self) { r in
            async let feed: Feed = r.resolveAsync()
            return Screen([try await feed], Store())
        }
        container.register(Feed.self, lifetime: .singleton) { r in
            let stores = try await withThrowingTaskGroup(of: Store.self) { group in
                group.addTask { try await r.resolveAsync() }
                return try await group.reduce(into: [Store]()) { $0.append($1) }
            }
            return Feed(stores[0])
        }
        container.register(Store.self) { r in
            _ = try await r.resolveAsync(Screen.self)
            return Store()
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) {
            await Result { try await container.resolveAsync(Screen.self) }
        }
        guard let outcome else { return }
        #expect(outcome.resolutionError?.kind.caseName == "circularDependency", "\(outcomeName(outcome))")
        #expect(outcome.resolutionError?.pathDescriptions == ["Screen", "Feed", "Store", "Screen"])
    }

    /// A child task's failure reaches the factory as its error; a factory that handles it
    /// still succeeds, and what the child built before failing is published with the resolve.
    @Test func aFactoryThatHandlesItsChildTasksFailureStillSucceeds() async throws {
        let container = Container(name: "root")
        container.register(Store.self, lifetime: .singleton) { _ in Store() }
        container.register(Feed.self) { r in
            let store: Store = try await r.resolveAsync()
            _ = store
            throw Boom("feed")
        }
        container.register(Screen.self) { r in
            async let feed: Feed = r.resolveAsync()
            let feeds = (try? await feed).map { [$0] } ?? []
            return Screen(feeds, try await r.resolveAsync())
        }
        let screen = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Screen.self) }
        guard let screen else { return }
        #expect(screen.feeds.isEmpty)
        #expect(try container.resolve(Store.self) === screen.store)
    }

    /// A child task the factory leaves unawaited is cancelled when the factory returns; the
    /// resolve still succeeds.
    @Test func aCancelledChildTaskDoesNotFailTheResolve() async throws {
        let container = Container(name: "root")
        container.register(Feed.self) { r in
            try await Task.sleep(for: .seconds(5))
            return Feed(try await r.resolveAsync())
        }
        container.register(Store.self, lifetime: .singleton) { _ in Store() }
        container.register(Screen.self) { r in
            async let _: Feed = r.resolveAsync()  // never awaited: cancelled when the factory returns
            return Screen([], try await r.resolveAsync())
        }
        let screen = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Screen.self) }
        guard let screen else { return }
        #expect(try container.resolve(Store.self) === screen.store)
    }

    /// `onResolved` blocks of instances built in child tasks run before the top-level resolve
    /// returns, once each.
    @Test func blocksOfInstancesBuiltInChildTasksRunBeforeTheResolveReturns() async throws {
        let container = Container(name: "root")
        let blocks = Counter()
        container.register(Store.self) { _ in Store() }
        container.register(Feed.self) { r in Feed(try await r.resolveAsync()) }
            .onResolved { _, _ in blocks.increment() }
        container.register(Screen.self) { r in
            Screen(try await Child.asyncLet.feeds(2, with: r), Store())
        }
        let screen = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Screen.self) }
        #expect(screen?.feeds.count == 2)
        #expect(blocks.value == 2)
    }

    /// A task the factory starts and that asks after the factory returned is a resolve of its
    /// own: it gets its instance, and nothing waits.
    @Test func aTaskThatAsksAfterItsFactoryReturnedIsAResolveOfItsOwn() async throws {
        let container = Container(name: "root")
        let late = Guarded<Task<Store, any Error>?>(nil)
        let returned = AsyncLatch()
        container.register(Store.self, lifetime: .singleton) { _ in Store() }
        container.register(Screen.self) { r in
            late.withLock { task in
                task = Task {
                    await returned.wait()
                    return try await r.resolveAsync()
                }
            }
            return Screen([], try await r.resolveAsync())
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (Screen, Store?) in
            let screen = try await container.resolveAsync(Screen.self)
            returned.open()
            return (screen, try await late.current?.value)
        }
        guard let (screen, store) = outcome else { return }
        #expect(store === screen.store)
    }

    /// Once the resolve has returned and its container is dropped, nothing of it stays alive:
    /// the branches let go of the resolve they joined (their finish ends in a task of its own).
    @Test func aResolveWithBranchesLeavesNothingAliveOnceItsContainerIsDropped() async throws {
        func resolveOnce() async throws -> (WeakProbe<Container>, WeakProbe<Store>, WeakProbe<Feed>)? {
            let container = Container(name: "root")
            container.register(Store.self, lifetime: .singleton) { _ in Store() }
            container.register(Feed.self) { r in Feed(try await r.resolveAsync()) }
            container.register(Screen.self) { r in
                Screen(try await Child.asyncLet.feeds(2, with: r), try await r.resolveAsync())
            }
            let screen = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Screen.self) }
            guard let screen else { return nil }
            return (WeakProbe(container), WeakProbe(screen.store), WeakProbe(screen.feeds.first))
        }
        guard let probes = try await resolveOnce() else { return }
        #expect(await waitUntil(atMost: 5) { probes.0.isFreed && probes.1.isFreed && probes.2.isFreed })
    }

    /// To observers a child task's requests are its factory's: the dependency graph has their
    /// edges, and a trace names the factory as their dependent, one level down.
    @Test func theDependencyGraphAndTracesSeeRequestsMadeInChildTasks() async throws {
        let container = Container(name: "root")
        container.register(Store.self, lifetime: .singleton) { _ in Store() }
        container.register(Feed.self) { r in Feed(try await r.resolveAsync()) }
        container.register(Screen.self) { r in
            Screen(try await Child.asyncLet.feeds(2, with: r), try await r.resolveAsync())
        }
        let graph = await container.dependencyGraphAsync()
        let edges = Set(graph.edges.map { "\($0.from.key.typeName) -> \($0.to.key.typeName)" })
        #expect(edges.isSuperset(of: ["Screen -> Feed", "Screen -> Store", "Feed -> Store"]), "\(edges)")
        let events = Guarded<[String]>([])
        _ = try await withAsyncWatchdog(seconds: 10) {
            try await Container.withTrace({ event in
                events.withLock {
                    $0.append("\(event.key.typeName) \(event.dependent?.typeName ?? "-") \(event.depth)")
                }
            }) {
                try await container.resolveAsync(Screen.self)
            }
        }
        #expect(events.current.filter { $0.hasPrefix("Feed ") } == ["Feed Screen 1", "Feed Screen 1"])
    }

    /// Many rounds of the diamond, with the store's build racing the feeds' requests: every
    /// round ends, with one store.
    @Test func stressDiamondsThroughChildTasksNeverHang() async throws {
        try await withAsyncWatchdog(seconds: 60) {
            for round in 0..<200 {
                let container = Container(name: "round-\(round)")
                let builds = Counter()
                container.register(Store.self, lifetime: .singleton) { _ in
                    builds.increment()
                    if round.isMultiple(of: 2) { await Task.yield() }
                    return Store()
                }
                container.register(Feed.self) { r in Feed(try await r.resolveAsync()) }
                container.register(Screen.self) { r in
                    async let store: Store = r.resolveAsync()
                    let feeds = try await Child.taskGroup.feeds(3, with: r)
                    return Screen(feeds, try await store)
                }
                let screen = try await container.resolveAsync(Screen.self)
                #expect(screen.feeds.allSatisfy { $0.store === screen.store }, "round \(round)")
                #expect(builds.value == 1, "round \(round)")
            }
        }
    }
}
