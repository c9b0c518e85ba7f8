import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Async factories (`register { r in try await … }`) under every lifetime, `resolveAsync` of
/// every kind of registration, and the rules async registrations share with synchronous ones:
/// dependencies join the resolve, owner-rooted singletons, `onResolved` order and cycles broken
/// by blocks, and nothing cached after a failure.
@Suite struct AsyncFactoryTests: ServiceFixtures {
    final class Thing: Sendable {}
    final class Report: Sendable {
        let config: Config
        init(config: Config) { self.config = config }
    }
    @MainActor final class Screen {
        let dep: Shared
        init(dep: Shared) { self.dep = dep }
    }
    /// Property-cycle participants: `A` takes `B` in its initializer, `B` gets `A` by property.
    final class A: Sendable {
        let b: B
        init(b: B) { self.b = b }
    }
    final class B: @unchecked Sendable {
        // @unchecked: `a` is set once, by an onResolved block, before the resolve returns.
        var a: A?
    }

    /// Registers `T` under `lifetime` with an async factory that yields (or, when `sleeping`,
    /// sleeps 1 ms) before it counts its run in `runs` and returns `make()`.
    static func registerAsync<T>(
        _ type: T.Type, in container: Container, lifetime: Lifetime, counting runs: Counter, sleeping: Bool = false,
        _ make: @escaping @Sendable () -> T
    ) {
        container.register(type, lifetime: lifetime) { _ in
            if sleeping { try await Task.sleep(for: .milliseconds(1)) } else { await Task.yield() }
            runs.increment()
            return make()
        }
    }

    static let allLifetimes: [Lifetime] = [.unique, .graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer]

    // MARK: Lifetimes

    /// An async `unique` factory runs for every resolve; each resolve gets a new instance.
    @Test func anAsyncUniqueFactoryBuildsANewInstanceForEveryResolve() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsync(Thing.self, in: container, lifetime: .unique, counting: runs) { Thing() }
        #expect(syncResolutionError { _ = try container.resolve(Thing.self) }?.kind.caseName == "requiresAsync")
        let things = try await withAsyncWatchdog(seconds: 10) {
            [try await container.resolveAsync(Thing.self), try await container.resolveAsync(Thing.self)]
        }
        guard let things else { return }
        #expect(things[0] !== things[1])
        #expect(runs.value == 2)
    }

    /// An async `graph` factory builds one instance per top-level resolve, shared by every
    /// dependent in it, and a new one for the next top-level resolve.
    @Test func anAsyncGraphFactoryIsSharedWithinOneResolveAndBuiltAgainForTheNext() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsync(Shared.self, in: container, lifetime: .graph, counting: runs, sleeping: true) { Shared() }
        container.register(Pair.self, lifetime: .unique) { r in
            Pair(first: try await r.resolveAsync(), second: try await r.resolveAsync())
        }
        let pairs = try await withAsyncWatchdog(seconds: 10) {
            [try await container.resolveAsync(Pair.self), try await container.resolveAsync(Pair.self)]
        }
        guard let pairs else { return }
        #expect(pairs[0].first === pairs[0].second)
        #expect(pairs[1].first === pairs[1].second)
        #expect(pairs[0].first !== pairs[1].first)
        #expect(runs.value == 2)
    }

    /// An async `singleton` factory runs once; every later resolve, from the owner or a child,
    /// gets that instance.
    @Test func anAsyncSingletonIsBuiltOnceAndSharedWithChildren() async throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let runs = Counter()
        Self.registerAsync(Thing.self, in: root, lifetime: .singleton, counting: runs, sleeping: true) { Thing() }
        let things = try await withAsyncWatchdog(seconds: 10) {
            [
                try await root.resolveAsync(Thing.self), try await child.resolveAsync(Thing.self),
                try await root.resolveAsync(Thing.self),
            ]
        }
        guard let things else { return }
        #expect(things.allSatisfy { $0 === things[0] })
        #expect(runs.value == 1)
        #expect(try root.resolve(Thing.self) === things[0], "a synchronous resolve reads the cached instance")
    }

    /// An async `weakSingleton` is shared while someone holds it, and built again once the last
    /// strong reference has gone.
    @Test func anAsyncWeakSingletonIsSharedWhileHeldAndRebuiltAfterRelease() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsync(Thing.self, in: container, lifetime: .weakSingleton, counting: runs) { Thing() }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (shared: Bool, released: Bool, rebuilt: Bool) in
            var held: Thing? = try await container.resolveAsync(Thing.self)
            weak let first = held
            let shared = try await container.resolveAsync(Thing.self) === held
            held = nil
            // The build's own task may drop its reference a moment after the resolve returned.
            let released = await waitUntil(atMost: 2) { first == nil }
            let again = try await container.resolveAsync(Thing.self)
            return (shared, released, first == nil && again !== first)
        }
        guard let outcome else { return }
        #expect(outcome.shared)
        #expect(outcome.released, "the instance was freed once the test dropped the last reference to it")
        #expect(outcome.rebuilt)
        #expect(runs.value == 2)
    }

    /// An async `eagerSingleton` resolved before any bootstrap is built then, once; a later
    /// `bootstrapAsync()` builds nothing more.
    @Test func anAsyncEagerSingletonResolvedBeforeBootstrapIsBuiltOnce() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsync(Thing.self, in: container, lifetime: .eagerSingleton, counting: runs) { Thing() }
        let things = try await withAsyncWatchdog(seconds: 10) { () -> [Thing] in
            let first = try await container.resolveAsync(Thing.self)
            try await container.bootstrapAsync()
            return [first, try await container.resolveAsync(Thing.self)]
        }
        guard let things else { return }
        #expect(things[0] === things[1])
        #expect(runs.value == 1)
    }

    /// An async `perContainer` factory builds one instance per container that the top-level
    /// resolve started from: one for each sibling, shared by resolves from the same one.
    @Test func anAsyncPerContainerFactoryBuildsOneInstancePerStartingContainer() async throws {
        let (root, left, right) = Container.rootWithTwoChildren("left", "right")
        let runs = Counter()
        Self.registerAsync(Thing.self, in: root, lifetime: .perContainer, counting: runs) { Thing() }
        let things = try await withAsyncWatchdog(seconds: 10) {
            [
                try await left.resolveAsync(Thing.self), try await left.resolveAsync(Thing.self),
                try await right.resolveAsync(Thing.self), try await right.resolveAsync(Thing.self),
                try await root.resolveAsync(Thing.self),
            ]
        }
        guard let things else { return }
        #expect(things[0] === things[1])
        #expect(things[2] === things[3])
        #expect(things[0] !== things[2])
        #expect(things[4] !== things[0] && things[4] !== things[2])
        #expect(runs.value == 3)
    }

    // MARK: resolveAsync of other registrations, arguments, the main actor

    /// `resolveAsync` runs synchronous factories too: a synchronous singleton is the instance a
    /// synchronous resolve gets, and a synchronous `unique` factory runs per resolve.
    @Test func resolveAsyncOfSynchronousRegistrationsWorks() async throws {
        let container = Container(name: "root")
        let uniqueRuns = Counter()
        container.register(Thing.self, lifetime: .singleton) { _ in Thing() }
        container.register(Shared.self, lifetime: .unique, counting: uniqueRuns) { Shared() }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (Thing, Shared, Shared) in
            (
                try await container.resolveAsync(Thing.self), try await container.resolveAsync(Shared.self),
                try await container.resolveAsync(Shared.self)
            )
        }
        guard let (thing, firstDep, secondDep) = outcome else { return }
        #expect(try container.resolve(Thing.self) === thing)
        #expect(firstDep !== secondDep)
        #expect(uniqueRuns.value == 2)
    }

    /// An async factory that takes runtime arguments is resolved by
    /// `resolveAsync(_:tag:arguments:)`, which passes them; other argument types do not match.
    @Test func anAsyncFactoryWithRuntimeArgumentsGetsThemFromResolveAsync() async throws {
        let container = Container(name: "root")
        container.register(Probe.self, tag: "repeat") { (_: Resolver, word: String, times: Int) async throws in
            await Task.yield()
            return Probe(String(repeating: word, count: times))
        }
        let syncError = syncResolutionError {
            _ = try container.resolve(Probe.self, tag: "repeat", arguments: "ab", 3)
        }
        #expect(syncError?.kind.caseName == "requiresAsync")
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (String, String) in
            let greeting = try await container.resolveAsync(Probe.self, tag: "repeat", arguments: "ab", 3)
            do {
                _ = try await container.resolveAsync(Probe.self, tag: "repeat", arguments: 3, "ab")
                return (greeting.label, "value")
            } catch {
                return (greeting.label, errorName(error))
            }
        }
        guard let (text, mismatch) = outcome else { return }
        #expect(text == "ababab")
        #expect(mismatch == "argumentMismatch")
    }

    /// `{ @MainActor r in try await … }` picks the async overload (a synchronous resolve off the
    /// main actor says `.requiresAsync`, not `.requiresMainActor`) and runs on the main actor
    /// when resolved from a detached task.
    @Test func aMainActorIsolatedAsyncFactoryRunsOnTheMainActor() async throws {
        let container = Container(name: "root")
        let onMainActor = Guarded<[Bool]>([])
        container.register(Shared.self) { _ in Shared() }
        container.register(Screen.self) { @MainActor r in
            let dep: Shared = try await r.resolveAsync()
            onMainActor.withLock { $0.append(MainActorProbe.isOnMainActor) }
            return Screen(dep: dep)
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (String, Screen) in
            try await Task.detached {
                let syncKind = syncResolutionError { _ = try container.resolve(Screen.self) }?.kind.caseName ?? "none"
                return (syncKind, try await container.resolveAsync(Screen.self))
            }.value
        }
        guard let (syncKind, _) = outcome else { return }
        #expect(syncKind == "requiresAsync")
        #expect(onMainActor.current == [true])
    }

    // MARK: Dependencies join the resolve

    /// A `graph` dependency requested twice in one `resolveAsync`, once with `resolveAsync` and
    /// once with a plain `resolve` through the factory's `Resolver` (on either side of a
    /// suspension point), is one instance: both requests join the same resolve.
    @Test(arguments: [true, false])
    func aGraphDependencyRequestedTwiceInOneAsyncResolveIsOneInstance(asyncDependency: Bool) async throws {
        let container = Container(name: "root")
        let runs = Counter()
        if asyncDependency {
            Self.registerAsync(Shared.self, in: container, lifetime: .graph, counting: runs, sleeping: true) {
                Shared()
            }
        } else {
            container.register(Shared.self, lifetime: .graph, counting: runs) { Shared() }
        }
        container.register(Pair.self, lifetime: .unique) { r in
            let first: Shared = try await r.resolveAsync()
            try await Task.sleep(for: .milliseconds(1))
            let second: Shared = try r.resolve()
            return Pair(first: first, second: second)
        }
        let pair = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Pair.self) }
        guard let pair else { return }
        #expect(pair.first === pair.second)
        #expect(runs.value == 1)
    }

    /// An async singleton owned by the root and first resolved from a child is built from the
    /// root's registrations, even where the child overrides a dependency (async or not); a
    /// `graph` factory resolved from the child uses the child's.
    @Test(arguments: [true, false])
    func anAsyncSingletonResolvedFromAChildUsesItsOwnersRegistrations(asyncConfig: Bool) async throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        for (container, label) in [(root, "root"), (child, "child")] {
            if asyncConfig {
                container.register(Config.self) { _ in
                    await Task.yield()
                    return Config(label)
                }
            } else {
                container.register(Config.self) { _ in Config(label) }
            }
        }
        root.register(Middle.self, lifetime: .singleton) { r in
            await Task.yield()
            return Middle(config: try await r.resolveAsync())
        }
        root.register(Report.self, lifetime: .graph) { r in
            await Task.yield()
            return Report(config: try await r.resolveAsync())
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (Middle, Middle, Report) in
            (
                try await child.resolveAsync(Middle.self), try await root.resolveAsync(Middle.self),
                try await child.resolveAsync(Report.self)
            )
        }
        guard let (fromChild, fromRoot, report) = outcome else { return }
        #expect(fromChild.config.label == "root")
        #expect(fromRoot === fromChild)
        #expect(report.config.label == "child")
    }

    // MARK: onResolved

    /// `onResolved` blocks of async-built instances run after the outermost factory returned and
    /// before `resolveAsync` returns, in the order the factories finished (dependencies first).
    /// With async singletons among them, a singleton's blocks run with the others at the end of
    /// the top-level resolve, and not again when the next resolve takes it from the cache. The
    /// chain: `Store` ← `Middle` ← `Config` (the leaf), and `Shared`, which `Store`'s factory
    /// also resolves.
    @Test(arguments: [Lifetime.graph, .singleton])
    func blocksOfAsyncBuiltInstancesRunInFactoryFinishOrder(lifetimeOfLeafAndMiddle lifetime: Lifetime) async throws {
        let container = Container(name: "root")
        let log = EventLog()
        container.register(Config.self, lifetime: lifetime) { _ in
            try await Task.sleep(for: .milliseconds(1))
            return Config()
        }.onResolved { _, _ in log.record("Config") }
        container.register(Middle.self, lifetime: lifetime) { r in
            Middle(config: try await r.resolveAsync())
        }.onResolved { _, _ in log.record("Middle") }
        container.register(Shared.self) { _ in Shared() }.onResolved { _, _ in log.record("Shared") }
        container.register(Store.self) { r in
            let store = Store(middle: try await r.resolveAsync())
            _ = try r.resolve(Shared.self)
            log.record("Store factory returns")
            return store
        }.onResolved { _, _ in log.record("Store") }
        let events = try await withAsyncWatchdog(seconds: 10) { () -> [[String]] in
            _ = try await container.resolveAsync(Store.self)
            let first = log.events
            _ = try await container.resolveAsync(Store.self)
            return [first, Array(log.events.dropFirst(first.count))]
        }
        guard let events else { return }
        #expect(events[0] == ["Store factory returns", "Config", "Middle", "Shared", "Store"])
        if lifetime == .singleton {
            #expect(events[1] == ["Store factory returns", "Shared", "Store"])
        } else {
            #expect(events[1] == events[0], "graph instances are built again, and their blocks run again")
        }
    }

    /// A property cycle through async factories (A's async factory takes B; B's block resolves
    /// A) resolves from A: each factory runs once and B's property points at the A this resolve
    /// built, which the block gets although an async factory built it.
    @Test(arguments: [Lifetime.graph, .singleton, .perContainer])
    func aPropertyCycleThroughAsyncFactoriesResolvesWithEachFactoryOnce(lifetime: Lifetime) async throws {
        let container = Container(name: "root")
        let aRuns = Counter()
        let bRuns = Counter()
        container.register(A.self, lifetime: lifetime) { r in
            aRuns.increment()
            return A(b: try await r.resolveAsync())
        }
        container.register(B.self, lifetime: lifetime) { _ in
            bRuns.increment()
            await Task.yield()
            return B()
        }.onResolved { r, b in b.a = try r.resolve(A.self) }
        let a = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(A.self) }
        guard let a else { return }
        #expect(a.b.a === a)
        #expect(aRuns.value == 1)
        #expect(bRuns.value == 1)
        if lifetime != .graph {
            #expect(try container.resolve(A.self) === a, "the cached pair is the one the resolve returned")
        }
        a.b.a = nil  // the test's own A <-> B cycle, broken so that the pair is freed
    }

    // MARK: Failure

    /// A failing async singleton factory caches nothing, not even a dependency it built in the
    /// same resolve: the next resolve builds both again, and the one after reads the cache.
    /// A factory that handles the failure of an async singleton's build (made in a task of its
    /// own) gets the build's error and goes on: its resolve succeeds, as when a synchronous
    /// dependency fails; the singleton is not cached, and the next resolve builds it again.
    /// Asked in the factory's own task and from a child task; the build failing at once (before
    /// its task first suspends, while the asking resolve has not looked at its slot yet) or
    /// later.
    @Test(arguments: [false, true], [false, true])
    func aFactoryThatHandlesTheFailureOfAnAsyncSingletonsBuildStillSucceeds(
        fromAChildTask: Bool, failingAtOnce: Bool
    ) async throws {
        let container = Container(name: "root")
        let runs = Counter()
        let seen = Guarded<[String]>([])
        container.register(Thing.self, lifetime: .singleton) { _ in
            let run = runs.increment()
            if run == 1, failingAtOnce { throw Boom("first build") }
            await Task.yield()
            if run == 1 { throw Boom("first build") }
            return Thing()
        }
        container.register(Report.self) { r in
            let outcome: Result<Thing, any Error>
            if fromAChildTask {
                async let thing: Result<Thing, any Error> = Result { try await r.resolveAsync(Thing.self) }
                outcome = await thing
            } else {
                outcome = await Result { try await r.resolveAsync(Thing.self) }
            }
            seen.withLock { $0.append(outcomeName(outcome)) }
            return Report(config: Config("handled"))
        }
        let report = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Report.self) }
        #expect(report != nil)
        #expect(seen.current == ["factoryFailed"])
        let thing = try await container.resolveAsync(Thing.self)
        #expect(try container.resolve(Thing.self) === thing)
        #expect(runs.value == 2)
    }

    @Test func aFailingAsyncFactoryCachesNothingAndTheNextResolveBuildsAgain() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        let depRuns = Counter()
        container.register(Shared.self, lifetime: .singleton) { _ in
            await Task.yield()
            depRuns.increment()
            return Shared()
        }
        container.register(Thing.self, lifetime: .singleton) { r in
            let run = runs.increment()
            _ = try await r.resolveAsync(Shared.self)
            try await Task.sleep(for: .milliseconds(1))
            if run == 1 { throw Boom("first build") }
            return Thing()
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (Result<Thing, any Error>, Thing, Thing) in
            let failed = await Result { try await container.resolveAsync(Thing.self) }
            return (failed, try await container.resolveAsync(Thing.self), try await container.resolveAsync(Thing.self))
        }
        guard let (failed, second, third) = outcome else { return }
        let error = failed.resolutionError
        #expect(error?.kind.caseName == "factoryFailed")
        #expect(error?.kind.underlyingError as? Boom == Boom("first build"))
        #expect(error?.pathDescriptions == ["Thing"])
        #expect(second === third)
        #expect(runs.value == 2)
        #expect(depRuns.value == 1, "the complete dependency built by the failed resolve stays cached")
    }
}
