import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// `resolveAsync` of a registration with a synchronous factory (`unique`, `graph`, or a cached
/// lifetime not built yet) runs the synchronous resolve (no async frames). These tests pin that
/// it behaves as the async path does: blocks, `graph` sharing, the errors of what it reaches,
/// joining the resolve of an async factory that asks, exactly-once builds; and that the
/// factory runs where the caller does.
@Suite struct ResolveAsyncShortcutTests: ServiceFixtures {
    final class Store: Sendable {}
    final class Handler: @unchecked Sendable {
        // @unchecked: `config` is set once, by an onResolved block, before the resolve returns.
        var config: Config?
    }
    @MainActor final class Screen {}

    /// A container whose `Store` singleton has a synchronous factory counting its runs.
    static func countedStoreSingleton() -> (container: Container, runs: Counter) {
        let container = Container(name: "app")
        let runs = Counter()
        container.register(Store.self, lifetime: .singleton, counting: runs) { Store() }
        return (container, runs)
    }

    @Test func aSynchronousTransientIsNewEachTimeAndItsBlocksRunBeforeItIsReturned() async throws {
        let container = Container(name: "app")
        container.register(Config.self, lifetime: .singleton) { _ in Config() }
        container.register(Handler.self, lifetime: .unique) { _ in Handler() }
            .onResolved { r, handler in handler.config = try r.resolve() }

        let first = try await container.resolveAsync(Handler.self)
        let second = try await container.resolveAsync(Handler.self)

        #expect(first !== second)
        #expect(first.config != nil && first.config === second.config)
    }

    @Test func aGraphRegistrationSharesItsGraphInstancesWithinTheResolve() async throws {
        let container = Container(name: "app")
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        container.register(Pair.self, lifetime: .graph) { r in Pair(first: try r.resolve(), second: try r.resolve()) }

        let first = try await container.resolveAsync(Pair.self)
        let second = try await container.resolveAsync(Pair.self)

        #expect(first.first === first.second)
        #expect(first.first !== second.first)
    }

    @Test func aSynchronousFactoryReachingAnUnbuiltAsyncSingletonThrowsRequiresAsyncUntilItIsBuilt() async throws {
        let container = Container(name: "app")
        container.register(Store.self, lifetime: .singleton) { _ in
            await Task.yield()
            return Store()
        }
        container.register(Pair.self, lifetime: .unique) { r in
            _ = try r.resolve(Store.self)
            return Pair(first: Shared(), second: Shared())
        }

        let before = await Result { try await container.resolveAsync(Pair.self) }
        #expect(outcomeName(before) == "requiresAsync")

        _ = try await container.resolveAsync(Store.self)
        let after = await Result { try await container.resolveAsync(Pair.self) }
        #expect(outcomeName(after) == "value")
    }

    @Test func aSynchronousFactoryReachingAMainActorFactoryOffTheMainActorThrowsRequiresMainActor() async throws {
        let container = Container(name: "app")
        container.register(Screen.self, lifetime: .unique) { @MainActor _ in Screen() }
        container.register(Shared.self, lifetime: .unique, needing: Screen.self) { Shared() }

        let outcome = try await withAsyncWatchdog {
            await Task.detached { outcomeName(await Result { try await container.resolveAsync(Shared.self) }) }.value
        }

        #expect(outcome == "requiresMainActor")
    }

    @Test func insideAnAsyncFactoryItJoinsThatFactorysResolve() async throws {
        let container = Container(name: "app")
        // Store (async) -> Shared (synchronous, unique) -> Store: a constructor cycle, which only
        // the resolve that is building Store can see.
        // Unowned: the container keeps this factory, which must not keep the container.
        container.register(Store.self, lifetime: .singleton) { [unowned container] _ in
            _ = try await container.resolveAsync(Shared.self)
            return Store()
        }
        container.register(Shared.self, lifetime: .unique, needing: Store.self) { Shared() }

        let outcome = try await withAsyncWatchdog {
            outcomeName(await Result { try await container.resolveAsync(Store.self) })
        }

        #expect(outcome == "circularDependency")
    }

    /// An unbuilt singleton with a synchronous factory is built by the synchronous resolve, where
    /// the caller runs: asked for on the main actor, its factory may resolve a main-actor
    /// service synchronously (as a `unique` one's may); it is built once and published.
    @MainActor
    @Test func anUnbuiltSynchronousSingletonIsBuiltWhereTheCallerRuns() async throws {
        let container = Container(name: "app")
        let runs = Counter()
        container.register(Screen.self, lifetime: .unique) { @MainActor _ in Screen() }
        container.register(Store.self, lifetime: .singleton) { r in
            _ = try r.resolve(Screen.self)
            _ = runs.increment()
            return Store()
        }

        let store = try await container.resolveAsync(Store.self)

        #expect(try await container.resolveAsync(Store.self) === store)
        #expect(try container.resolve(Store.self) === store)
        #expect(runs.value == 1)
    }

    /// Tasks that first-resolve one unbuilt singleton with a synchronous factory at once: one
    /// builds it synchronously, the others wait for that build as readers (suspended, not
    /// blocked), and all get the one instance.
    @Test func tasksFirstResolvingOneSynchronousSingletonGetOneInstance() async throws {
        let (container, runs) = Self.countedStoreSingleton()
        let stores = try await withAsyncWatchdog {
            await withTaskGroup(of: Store?.self) { group in
                for _ in 0..<50 { group.addTask { try? await container.resolveAsync(Store.self) } }
                var all: [Store?] = []
                for await store in group { all.append(store) }
                return all
            }
        }
        guard let stores else { return }
        #expect(stores.count == 50 && stores.allSatisfy { $0 != nil && $0 === stores[0] })
        #expect(runs.value == 1)
    }

    /// Cancellation ends a wait (the contract); a cancelled task that finds nothing to wait for
    /// builds the instance, as the synchronous resolve of the same factory would.
    @Test func aCancelledTaskThatFindsASingletonUnbuiltBuildsIt() async throws {
        let (container, runs) = Self.countedStoreSingleton()
        let outcome = await Task { () -> Store? in
            withUnsafeCurrentTask { $0?.cancel() }
            return try? await container.resolveAsync(Store.self)
        }.value
        let built = try #require(outcome)
        #expect(runs.value == 1)
        #expect(try container.resolve(Store.self) === built, "published for the others")
    }
}
