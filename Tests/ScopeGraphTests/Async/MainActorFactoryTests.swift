import Dispatch
import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Main-actor factories (`register(_:mainActorFactory:)`): where they run for each kind of
/// resolve, the `.requiresMainActor` error of a synchronous resolve off the main actor (which
/// never blocks), exactly-once building under concurrent async resolves, and task-locals seen
/// inside the factories a resolve runs.
@Suite struct MainActorFactoryTests {
    final class Dep: Sendable {}
    @MainActor final class Screen {
        var title = ""
    }
    /// A nonisolated service that holds a main-actor screen.
    final class Presenter: Sendable {
        let screen: Screen
        init(screen: Screen) { self.screen = screen }
    }
    /// What a factory saw of the task-locals of the resolve that ran it.
    final class Seen: Sendable {
        let requestID: String?
        let currentContainer: String
        init(requestID: String?, currentContainer: String) {
            self.requestID = requestID
            self.currentContainer = currentContainer
        }
    }
    final class Outer: Sendable {
        let seen: Seen
        init(seen: Seen) { self.seen = seen }
    }

    @TaskLocal static var requestID: String? = nil

    /// A `mainActorFactory:` registration resolved with `resolveAsync` from a detached task
    /// (off the main actor) runs on the main actor.
    @Test func aMainActorFactoryResolvedAsyncFromADetachedTaskRunsOnTheMainActor() async throws {
        let container = Container(name: "root")
        let onMainActor = Guarded<[Bool]>([])
        container.register(Dep.self) { _ in Dep() }
        container.register(
            Screen.self,
            mainActorFactory: { r in
                _ = try r.resolve(Dep.self)
                onMainActor.withLock { $0.append(MainActorProbe.isOnMainActor) }
                return Screen()
            })
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (Bool, Screen) in
            try await Task.detached {
                (MainActorProbe.isOnMainActor, try await container.resolveAsync(Screen.self))
            }.value
        }
        guard let (callerOnMainActor, _) = outcome else { return }
        #expect(!callerOnMainActor, "the detached caller ran off the main actor")
        #expect(onMainActor.current == [true])
    }

    /// A trailing `{ @MainActor r in … }` closure that does not await picks the main-actor
    /// overload: off the main actor a synchronous resolve says `.requiresMainActor`, and
    /// `resolveAsync` runs it on the main actor.
    @Test func aTrailingMainActorClosureWithoutAwaitIsAMainActorFactory() async throws {
        let container = Container(name: "root")
        let onMainActor = Guarded<[Bool]>([])
        container.register(Screen.self) { @MainActor _ in
            onMainActor.withLock { $0.append(MainActorProbe.isOnMainActor) }
            return Screen()
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> String in
            try await Task.detached {
                let kind = syncResolutionError { _ = try container.resolve(Screen.self) }?.kind.caseName ?? "none"
                _ = try await container.resolveAsync(Screen.self)
                return kind
            }.value
        }
        #expect(outcome == "requiresMainActor")
        #expect(onMainActor.current == [true])
    }

    /// A synchronous `resolve` called on the main actor runs the main-actor factory inline:
    /// the factory runs during the call, on the main actor, with its dependencies.
    @Test func aSynchronousResolveOnTheMainActorRunsTheFactoryInline() async throws {
        let container = Container(name: "root")
        let insideCall = Guarded(false)
        let seenByFactory = Guarded<[String]>([])
        container.register(Dep.self, lifetime: .singleton) { _ in Dep() }
        container.register(
            Screen.self,
            mainActorFactory: { r in
                _ = try r.resolve(Dep.self)
                let inside = insideCall.current ? "inside the call" : "outside the call"
                let isolation = MainActorProbe.isOnMainActor ? "on the main actor" : "off the main actor"
                seenByFactory.withLock { $0.append("\(inside), \(isolation)") }
                let screen = Screen()
                screen.title = "built"
                return screen
            })
        container.register(Presenter.self) { r in Presenter(screen: try r.resolve()) }
        let titles = try await withAsyncWatchdog(seconds: 10) { () -> [String] in
            try await MainActor.run {
                insideCall.withLock { $0 = true }
                defer { insideCall.withLock { $0 = false } }
                let screen = try container.resolve(Screen.self)
                let presenter = try container.resolve(Presenter.self)
                return [screen.title, presenter.screen.title]
            }
        }
        #expect(titles == ["built", "built"])
        #expect(seenByFactory.current == ["inside the call, on the main actor", "inside the call, on the main actor"])
    }

    /// A container whose `Presenter` (synchronous factory) needs a `Screen` with a main-actor
    /// factory, whose runs are counted.
    static func presenterOfAMainActorScreen() -> (container: Container, screenRuns: Counter) {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(
            Screen.self,
            mainActorFactory: { _ in
                runs.increment()
                return Screen()
            })
        container.register(Presenter.self) { r in Presenter(screen: try r.resolve()) }
        return (container, runs)
    }

    /// A synchronous resolve off the main actor (from a detached task) throws
    /// `.requiresMainActor` with the path to the main-actor registration, and a description
    /// that names `resolveAsync`; the factory does not run.
    @Test func aSynchronousResolveFromADetachedTaskThrowsRequiresMainActor() async throws {
        let (container, runs) = Self.presenterOfAMainActorScreen()
        let error = try await withAsyncWatchdog(seconds: 10) {
            await Task.detached { syncResolutionError { _ = try container.resolve(Presenter.self) } }.value
        }
        guard let error else { return }
        #expect(error?.kind.caseName == "requiresMainActor")
        #expect(error?.key.typeName == "Screen")
        #expect(error?.pathDescriptions == ["Presenter", "Screen"])
        #expect(error?.description.contains("resolveAsync") == true)
        #expect(runs.value == 0)
    }

    /// A synchronous resolve on a background thread throws `.requiresMainActor` at once, even
    /// while the main actor is busy: it never waits for the main thread (the main actor is
    /// held until the resolve has returned).
    @Test func aSynchronousResolveOnABackgroundThreadNeverWaitsForTheMainActor() async throws {
        let (container, runs) = Self.presenterOfAMainActorScreen()
        let release = DispatchSemaphore(value: 0)
        let mainActorHeld = AsyncLatch()
        let holder = Task { @MainActor in
            mainActorHeld.open()
            blockCallingThread(on: release, atMost: 10)
        }
        guard try await withAsyncWatchdog(seconds: 10, { await mainActorHeld.wait() }) != nil else { return }
        let error = try await withAsyncWatchdog(seconds: 5) {
            await runOnNewThread { syncResolutionError { _ = try container.resolve(Presenter.self) } }
        }
        release.signal()
        await holder.value
        guard let error else { return }
        #expect(error?.kind.caseName == "requiresMainActor")
        #expect(error?.pathDescriptions == ["Presenter", "Screen"])
        #expect(error?.description.contains("resolveAsync") == true)
        #expect(runs.value == 0)
    }

    /// A main-actor singleton resolved with `resolveAsync` by many tasks at once is built once;
    /// every task gets that instance.
    @Test func aMainActorSingletonIsBuiltOnceUnderConcurrentAsyncResolves() async throws {
        let count = 500
        let container = Container(name: "root")
        let runs = Counter()
        container.register(
            Screen.self, lifetime: .singleton,
            mainActorFactory: { _ in
                runs.increment()
                return Screen()
            })
        let screens = try await withAsyncWatchdog(seconds: 30) { () -> [Screen] in
            try await withThrowingTaskGroup(of: Screen.self) { group in
                for _ in 0..<count {
                    group.addTask { try await container.resolveAsync(Screen.self) }
                }
                var screens: [Screen] = []
                for try await screen in group { screens.append(screen) }
                return screens
            }
        }
        guard let screens else { return }
        #expect(screens.count == count)
        #expect(screens.allSatisfy { $0 === screens[0] })
        #expect(runs.value == 1)
    }

    /// A main-actor factory with runtime arguments gets them from `resolveAsync(_:tag:arguments:)`,
    /// on the main actor.
    @Test func aMainActorFactoryWithRuntimeArgumentsGetsThem() async throws {
        let container = Container(name: "root")
        let onMainActor = Guarded<[Bool]>([])
        container.register(
            Screen.self,
            mainActorFactory: { (_: Resolver, title: String) in
                onMainActor.withLock { $0.append(MainActorProbe.isOnMainActor) }
                let screen = Screen()
                screen.title = title
                return screen
            })
        let screen = try await withAsyncWatchdog(seconds: 10) {
            try await Task.detached { try await container.resolveAsync(Screen.self, tag: nil, arguments: "Inbox") }
                .value
        }
        guard let screen else { return }
        #expect(await screen.title == "Inbox")
        #expect(onMainActor.current == [true])
    }

    /// A `@TaskLocal` of the caller and `Container.current` bound with `withValue` are seen
    /// inside the async and main-actor factories the resolve runs, for every lifetime, whether
    /// requested at the top level or as a dependency of another async factory.
    @Test(arguments: ["async", "mainActor"], [Lifetime.graph, .singleton, .perContainer])
    func taskLocalsOfTheCallerAreSeenInsideTheFactories(kind: String, lifetime: Lifetime) async throws {
        let container = Container(name: "root")
        let current = Container(name: "bound-current")
        if kind == "async" {
            container.register(Seen.self, lifetime: lifetime) { _ in
                await Task.yield()
                return Seen(requestID: Self.requestID, currentContainer: Container.current.name)
            }
        } else {
            container.register(
                Seen.self, lifetime: lifetime,
                mainActorFactory: { _ in
                    Seen(requestID: Self.requestID, currentContainer: Container.current.name)
                })
        }
        container.register(Outer.self) { r in
            await Task.yield()
            return Outer(seen: try await r.resolveAsync())
        }
        let seen = try await withAsyncWatchdog(seconds: 10) { () -> Seen in
            try await Self.$requestID.withValue("request-7") {
                try await Container.$current.withValue(current) {
                    try await container.resolveAsync(Outer.self).seen
                }
            }
        }
        guard let seen else { return }
        #expect(seen.requestID == "request-7")
        #expect(seen.currentContainer == "bound-current")
    }
}
