import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// A hook that throws does not stop the others; `ShutdownError` lists every failure with the
/// key and the container, and its description mentions each.
@Suite struct ShutdownErrorTests {
    /// A root and a child, each with instances whose hooks record and some of which throw.
    private static func failingTree(recorder: ShutdownRecorder) throws -> (root: Container, child: Container) {
        let root = Container(name: "app-root")
        root.registerShutdownProbe("first", recorder: recorder)
        root.register(ShutdownProbe.self, tag: "database", lifetime: .singleton) { _ in ShutdownProbe("database") }
            .onShutdown { database in
                recorder.record(database)
                throw Boom("database refused to close")
            }
        root.registerShutdownProbe("last", recorder: recorder)
        let child = root.makeChild(name: "checkout-scope")
        child.register(ShutdownProbe.self, lifetime: .perContainer) { _ in ShutdownProbe("cart") }
            .onShutdown { cart in
                recorder.record(cart)
                throw Boom("cart lost")
            }
        for label in ["first", "database", "last"] { _ = try root.resolveProbe(label) }
        _ = try child.resolve(ShutdownProbe.self)
        return (root, child)
    }

    /// Shuts `failingTree`'s root down: returns the `ShutdownError` it threw and what the hooks
    /// recorded, having checked that the child was shut down too.
    private static func shutDownFailingTree() async throws -> (error: ShutdownError, recorder: ShutdownRecorder) {
        let recorder = ShutdownRecorder()
        let (root, child) = try failingTree(recorder: recorder)
        let error = try #require(await #expect(throws: ShutdownError.self) { try await root.shutdown() })
        #expect(child.isShutDown)  // also keeps the child alive until here: a dropped child runs no hooks
        return (error, recorder)
    }

    @Test func aHookThatThrowsDoesNotStopTheOthers() async throws {
        try await withAsyncWatchdog {
            let (_, recorder) = try await Self.shutDownFailingTree()

            #expect(recorder.labels == ["cart", "last", "database", "first"])
        }
    }

    @Test func theFailuresListEachHookThatThrewWithItsKeyAndContainer() async throws {
        try await withAsyncWatchdog {
            let (error, _) = try await Self.shutDownFailingTree()

            try #require(error.failures.count == 2)
            let cart = error.failures[0]
            #expect(cart.key == ServiceKey(typeName: "ShutdownProbe"))
            #expect(cart.container == "checkout-scope")
            #expect((cart.error as? Boom) == Boom("cart lost"))
            let database = error.failures[1]
            #expect(database.key == ServiceKey(typeName: "ShutdownProbe", tag: "database"))
            #expect(database.container == "app-root")
            #expect((database.error as? Boom) == Boom("database refused to close"))
        }
    }

    @Test func theDescriptionMentionsEveryFailure() async throws {
        try await withAsyncWatchdog {
            let (error, _) = try await Self.shutDownFailingTree()

            let description = error.description
            for fragment in [
                #"ShutdownProbe[tag: "database"]"#, "app-root", "database refused to close", "checkout-scope",
                "cart lost",
            ] {
                #expect(description.contains(fragment), "missing \(fragment) in: \(description)")
            }
        }
    }

    @Test func aLaterHookOfTheSameRegistrationStillRunsAfterOneThrew() async throws {
        try await withAsyncWatchdog {
            let log = EventLog()
            let container = Container(name: "app")
            container.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("service") }
                .onShutdown { _ in
                    log.record("first")
                    throw Boom("first")
                }
                .onShutdown { _ in log.record("second") }
            _ = try container.resolve(ShutdownProbe.self)

            let error = try #require(await #expect(throws: ShutdownError.self) { try await container.shutdown() })

            #expect(log.events == ["first", "second"])
            #expect(error.failures.count == 1)
        }
    }

    @Test func everyHookOfSeveralInstancesOfOneRegistrationIsReported() async throws {
        try await withAsyncWatchdog {
            let root = Container(name: "root")
            root.register(ShutdownProbe.self, lifetime: .perContainer) { _ in ShutdownProbe("scoped") }
                .onShutdown { _ in throw Boom("scoped") }
            let children = (1...3).map { root.makeChild(name: "child-\($0)") }
            for container in children + [root] { _ = try container.resolve(ShutdownProbe.self) }

            let error = try #require(await #expect(throws: ShutdownError.self) { try await root.shutdown() })

            #expect(error.failures.map(\.container) == ["child-3", "child-2", "child-1", "root"])
        }
    }

    @Test func aShutdownWhoseHooksAllSucceedDoesNotThrow() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            try container.cacheShutdownProbe("only", recorder: recorder)

            try await container.shutdown()

            #expect(recorder.labels == ["only"])
        }
    }
}
