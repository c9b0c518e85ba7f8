import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// The order of `shutdown()`: descendants first (the most recently created child first), then
/// this container's cached instances newest first, so that an instance is shut down before the
/// instances it was built from; which lifetimes are tracked.
@Suite struct ShutdownOrderTests {
    @Test func descendantsAreShutDownBeforeTheirParentTheMostRecentlyCreatedChildFirst() async throws {
        try await withShutdownRecorder(container: "root") { recorder, root in
            try root.cacheShutdownProbe("root-early", recorder: recorder)
            let first = root.makeChild(name: "first")
            let second = root.makeChild(name: "second")
            let third = root.makeChild(name: "third")
            let grandchild = first.makeChild(name: "grandchild")  // made after every child of the root
            for container in [grandchild, third, first, second] {
                try container.cacheShutdownProbe(container.name, recorder: recorder)
            }
            try root.cacheShutdownProbe("root-late", recorder: recorder)

            try await root.shutdown()

            #expect(recorder.labels == ["third", "second", "grandchild", "first", "root-late", "root-early"])
            #expect([first, second, third, grandchild].allSatisfy { $0.isShutDown })  // and kept alive until here
        }
    }

    @Test func instancesOfOneContainerAreShutDownInReverseOrderOfCreation() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            for label in ["a", "b", "c", "d"] { container.registerShutdownProbe(label, recorder: recorder) }
            for label in ["b", "d", "a", "c"] { _ = try container.resolveProbe(label) }

            try await container.shutdown()

            #expect(recorder.labels == ["c", "a", "d", "b"])
        }
    }

    @Test func anInstanceIsShutDownBeforeTheInstancesItWasBuiltFrom() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            container.registerShutdownProbe("leaf", recorder: recorder)
            container.registerShutdownProbe("mid", dependencies: ["leaf"], recorder: recorder)
            container.registerShutdownProbe("top", dependencies: ["mid"], recorder: recorder)
            try container.cacheShutdownProbe("other", recorder: recorder)
            let top = try container.resolveProbe("top")  // builds leaf, then mid, then top

            try await container.shutdown()

            #expect(recorder.labels == ["top", "mid", "leaf", "other"])
            #expect(recorder.instances.first === top)
        }
    }

    @Test func aDependencyResolvedEarlierIsShutDownAfterEverythingBuiltFromIt() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            container.registerShutdownProbe("leaf", recorder: recorder)
            container.registerShutdownProbe("independent", recorder: recorder)
            container.registerShutdownProbe("top", dependencies: ["leaf"], recorder: recorder)
            _ = try container.resolveProbe("leaf")
            _ = try container.resolveProbe("independent")
            _ = try container.resolveProbe("top")

            try await container.shutdown()

            #expect(recorder.labels == ["top", "independent", "leaf"])
        }
    }

    @Test func aHookFinishesBeforeTheNextHookStarts() async throws {
        try await withAsyncWatchdog {
            let log = EventLog()
            let container = Container(name: "app")
            container.register(ShutdownProbe.self, tag: "leaf", lifetime: .singleton) { _ in ShutdownProbe("leaf") }
                .onShutdown { _ in log.record("leaf") }
            container.registerShutdownProbe("top", dependencies: ["leaf"], recorder: nil).onShutdown { _ in
                log.record("top begins")
                try await Task.sleep(for: .milliseconds(30))
                log.record("top ends")
            }
            _ = try container.resolveProbe("top")

            try await container.shutdown()

            #expect(log.events == ["top begins", "top ends", "leaf"])
        }
    }

    @Test func aChildsPerContainerHandlerIsShutDownBeforeTheRootSingletonItUses() async throws {
        try await withShutdownRecorder(container: "root") { recorder, root in
            let log = EventLog()
            root.register(ShutdownProbe.self, tag: "pool", lifetime: .singleton) { _ in ShutdownProbe("pool") }
                .onShutdown { pool in
                    log.record("pool")
                    recorder.record(pool)
                }
            root.registerShutdownProbe("handler", lifetime: .perContainer, dependencies: ["pool"], recorder: nil)
                .onShutdown { handler in
                    log.record("handler begins")
                    try await Task.sleep(for: .milliseconds(10))
                    log.record("handler ends")
                    recorder.record(handler)
                }
            let firstRequest = root.makeChild(name: "request-1")
            let secondRequest = root.makeChild(name: "request-2")
            let firstHandler = try firstRequest.resolveProbe("handler")
            let secondHandler = try secondRequest.resolveProbe("handler")
            let rootHandler = try root.resolveProbe("handler")
            let pool = try root.resolveProbe("pool")
            #expect(firstHandler.dependencies.first === pool && secondHandler.dependencies.first === pool)

            try await root.shutdown()

            let order = recorder.instances
            try #require(order.count == 4)
            #expect(order[0] === secondHandler, "the most recently created child first")
            #expect(order[1] === firstHandler)
            #expect(order[2] === rootHandler, "then the root's own instances, newest first")
            #expect(order[3] === pool)
            let handlerRun = ["handler begins", "handler ends"]
            #expect(log.events == handlerRun + handlerRun + handlerRun + ["pool"])
            #expect(firstRequest.isShutDown && secondRequest.isShutDown)  // and kept alive until here
        }
    }

    @Test func hooksOfOneRegistrationRunInTheOrderAdded() async throws {
        try await withAsyncWatchdog {
            let log = EventLog()
            let container = Container(name: "app")
            container.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("service") }
                .onShutdown { _ in log.record("first") }
                .onShutdown { _ in
                    try await Task.sleep(for: .milliseconds(5))
                    log.record("second")
                }
                .onShutdown { _ in log.record("third") }
            _ = try container.resolve(ShutdownProbe.self)

            try await container.shutdown()

            #expect(log.events == ["first", "second", "third"])
        }
    }

    @Test(arguments: [Lifetime.singleton, .eagerSingleton, .weakSingleton, .perContainer])
    func everyCachedLifetimeGetsItsHooks(_ lifetime: Lifetime) async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            let builds = Counter()
            container.register(ShutdownProbe.self, lifetime: lifetime, counting: builds) {
                ShutdownProbe("\(lifetime)")
            }
            .onShutdown { recorder.record($0) }
            if lifetime == .eagerSingleton { try container.bootstrap() }
            let instance = try container.resolve(ShutdownProbe.self)  // held: a weak singleton stays alive

            try await container.shutdown()

            #expect(builds.value == 1)
            #expect(recorder.count == 1)
            #expect(recorder.count(of: instance) == 1)
        }
    }

    @Test(arguments: [Lifetime.unique, .graph])
    func uniqueAndGraphInstancesAreNotTracked(_ lifetime: Lifetime) async throws {
        try await withShutdownRecorder(container: "root") { recorder, root in
            root.register(ShutdownProbe.self, lifetime: lifetime) { _ in ShutdownProbe("\(lifetime)") }
                .onShutdown { recorder.record($0) }
            let child = root.makeChild(name: "child")
            let held = [try root.resolve(ShutdownProbe.self), try child.resolve(ShutdownProbe.self)]

            try await root.shutdown()

            #expect(held.count == 2)
            #expect(recorder.count == 0)
        }
    }

    @Test func instancesBuiltByAsyncAndMainActorFactoriesGetTheirHooks() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            container.register(ShutdownProbe.self, tag: "async", lifetime: .singleton) { _ in
                await Task.yield()
                return ShutdownProbe("async")
            }
            .onShutdown { recorder.record($0) }
            container.register(
                ShutdownProbe.self, tag: "main", lifetime: .singleton,
                mainActorFactory: { _ in
                    ShutdownProbe("main")
                }
            )
            .onShutdown { recorder.record($0) }
            let asyncBuilt = try await container.resolveAsync(ShutdownProbe.self, tag: "async")
            let mainBuilt = try await container.resolveAsync(ShutdownProbe.self, tag: "main")

            try await container.shutdown()

            #expect(recorder.labels == ["main", "async"])
            #expect(recorder.count(of: asyncBuilt) == 1 && recorder.count(of: mainBuilt) == 1)
        }
    }
}
