import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Exactly once: each hook runs once per instance however many times, and from however many
/// tasks, `shutdown()` is called; every caller returns after the one shutdown has finished,
/// with its one outcome.
@Suite struct ShutdownOnceTests {
    /// The failures of a `ShutdownError`, as comparable text: key, container and error.
    private static func summary(of error: ShutdownError) -> [String] {
        error.failures.map { "\($0.key) in \($0.container): \($0.error)" }
    }

    /// A root with a singleton and a child with a `perContainer` instance, both with hooks that
    /// record in `recorder`; with `slowRootHook`, the root's hook sleeps 50 ms and then sets
    /// `finished`; with `failing`, the root's hook throws.
    private static func tree(slowRootHook: Bool = false, failing: Bool = false) throws -> (
        recorder: ShutdownRecorder, finished: Guarded<Bool>, root: Container, child: Container,
        instances: [ShutdownProbe]
    ) {
        let recorder = ShutdownRecorder()
        let finished = Guarded(false)
        let root = Container(name: "root")
        root.register(ShutdownProbe.self, tag: "pool", lifetime: .singleton) { _ in ShutdownProbe("pool") }
            .onShutdown { pool in
                recorder.record(pool)
                if slowRootHook {
                    try await Task.sleep(for: .milliseconds(50))
                    finished.withLock { $0 = true }
                }
                if failing { throw Boom("pool hook") }
            }
        root.registerShutdownProbe("handler", lifetime: .perContainer, dependencies: ["pool"], recorder: recorder)
        let child = root.makeChild(name: "child")
        let handler = try child.resolveProbe("handler")
        let pool = try root.resolveProbe("pool")
        return (recorder, finished, root, child, [handler, pool])
    }

    @Test func callingShutdownTwiceRunsEachHookOnce() async throws {
        try await withAsyncWatchdog {
            let (recorder, _, root, child, instances) = try Self.tree()

            try await root.shutdown()
            try await root.shutdown()
            #expect(child.isShutDown)  // also keeps the child alive until here: a dropped child runs no hooks

            #expect(recorder.recorded(onceEach: instances), "\(recorder.labels)")
        }
    }

    @Test func fiftyConcurrentCallersRunEachHookOnceAndAllReturnAfterTheShutdownFinished() async throws {
        try await withAsyncWatchdog {
            let (recorder, finished, root, child, instances) = try Self.tree(slowRootHook: true)

            let sawFinished = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await root.shutdown()
                        return finished.current
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }

            #expect(sawFinished.count == 50)
            #expect(child.isShutDown)  // also keeps the child alive until here: a dropped child runs no hooks
            #expect(sawFinished.allSatisfy { $0 }, "a caller returned before the shutdown had finished")
            #expect(recorder.recorded(onceEach: instances), "\(recorder.labels)")
        }
    }

    @Test func aCallMadeWhileTheShutdownIsRunningReturnsAfterItFinished() async throws {
        try await withAsyncWatchdog {
            let (recorder, finished, root, child, _) = try Self.tree(slowRootHook: true)
            let first = Task { try await root.shutdown() }
            await shutdownEventually { root.isShutDown }

            try await root.shutdown()

            #expect(finished.current, "the second call returned before the hooks had finished")
            try await first.value
            #expect(child.isShutDown)  // also keeps the child alive until here: a dropped child runs no hooks
            #expect(recorder.count == 2)
        }
    }

    @Test func aChildShutDownWhileItsRootShutsDownRunsItsHooksOnce() async throws {
        try await withAsyncWatchdog {
            let (recorder, _, root, child, instances) = try Self.tree()

            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        if index.isMultiple(of: 2) { try await root.shutdown() } else { try await child.shutdown() }
                    }
                }
                try await group.waitForAll()
            }

            #expect(recorder.recorded(onceEach: instances), "\(recorder.labels)")
        }
    }

    @Test func aChildShutDownBeforeItsRootIsNotShutDownAgain() async throws {
        try await withAsyncWatchdog {
            let (recorder, _, root, child, instances) = try Self.tree()

            try await child.shutdown()
            #expect(recorder.count == 1 && recorder.count(of: instances[0]) == 1)
            try await root.shutdown()

            #expect(recorder.recorded(onceEach: instances), "\(recorder.labels)")
        }
    }

    /// A root whose child caches a `perContainer` instance with a hook that throws.
    private static func childWithAFailingHook() throws -> (root: Container, child: Container) {
        let root = Container(name: "root")
        root.register(ShutdownProbe.self, lifetime: .perContainer) { _ in ShutdownProbe("handler") }
            .onShutdown { _ in throw Boom("handler hook") }
        let child = root.makeChild(name: "child")
        _ = try child.resolve(ShutdownProbe.self)
        return (root, child)
    }

    /// The child's failure was its own shutdown's outcome: the root's shutdown, which ran no
    /// hook of the child's, reports only the hooks it ran.
    @Test func aRootShutDownAfterItsChildsFailedShutdownDoesNotReportTheChildsFailureAgain() async throws {
        try await withAsyncWatchdog {
            let (root, child) = try Self.childWithAFailingHook()

            let childError = await #expect(throws: ShutdownError.self) { try await child.shutdown() }
            #expect(childError.map(Self.summary) == ["ShutdownProbe in child: Boom(message: \"handler hook\")"])
            try await root.shutdown()
            #expect(child.isShutDown)  // also keeps the child alive until here

            let again = await #expect(throws: ShutdownError.self) { try await child.shutdown() }
            #expect(again.map(Self.summary) == childError.map(Self.summary), "the child's own outcome stays")
        }
    }

    /// A child the root's shutdown shuts down itself is reported with the root's failures.
    @Test func aRootShutdownReportsTheFailuresOfTheChildrenItShutDown() async throws {
        try await withAsyncWatchdog {
            let (root, child) = try Self.childWithAFailingHook()

            let error = await #expect(throws: ShutdownError.self) { try await root.shutdown() }
            #expect(error.map(Self.summary) == ["ShutdownProbe in child: Boom(message: \"handler hook\")"])
            let childError = await #expect(throws: ShutdownError.self) { try await child.shutdown() }
            #expect(childError.map(Self.summary) == error.map(Self.summary))
        }
    }

    @Test func aCallMadeAfterAFailedShutdownThrowsTheSameFailures() async throws {
        try await withAsyncWatchdog {
            let (recorder, _, root, child, _) = try Self.tree(failing: true)

            let first = await #expect(throws: ShutdownError.self) { try await root.shutdown() }
            let second = await #expect(throws: ShutdownError.self) { try await root.shutdown() }
            #expect(child.isShutDown)  // also keeps the child alive until here: a dropped child runs no hooks

            let firstSummary = try #require(first.map(Self.summary))
            #expect(firstSummary == ["ShutdownProbe[tag: \"pool\"] in root: Boom(message: \"pool hook\")"])
            #expect(second.map(Self.summary) == firstSummary)
            #expect(recorder.count == 2, "the second call ran no hook")
        }
    }

    @Test func concurrentCallersOfAFailingShutdownAllGetTheSameFailures() async throws {
        try await withAsyncWatchdog {
            let (recorder, finished, root, child, _) = try Self.tree(slowRootHook: true, failing: true)

            let outcomes = await withTaskGroup(of: [String]?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        do {
                            try await root.shutdown()
                            return nil
                        } catch let error as ShutdownError {
                            return finished.current ? Self.summary(of: error) : ["returned before the end"]
                        } catch {
                            return ["not a ShutdownError: \(error)"]
                        }
                    }
                }
                return await group.reduce(into: [[String]?]()) { $0.append($1) }
            }

            let expected = ["ShutdownProbe[tag: \"pool\"] in root: Boom(message: \"pool hook\")"]
            #expect(child.isShutDown)  // also keeps the child alive until here: a dropped child runs no hooks
            #expect(outcomes.count == 50)
            #expect(outcomes.allSatisfy { $0 == expected })
            #expect(recorder.count == 2)
        }
    }

    @Test func aCancelledCallerStillRunsEveryHookUncancelled() async throws {
        try await withAsyncWatchdog {
            let root = Container(name: "root")
            let hooksSawCancellation = Guarded<[Bool]>([])
            root.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("pool") }
                .onShutdown { _ in
                    // A hook that sleeps would throw CancellationError if the caller's
                    // cancellation reached it.
                    try await Task.sleep(for: .milliseconds(20))
                    hooksSawCancellation.withLock { $0.append(Task.isCancelled) }
                }
            _ = try root.resolve(ShutdownProbe.self)

            let caller = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await root.shutdown()
            }
            try await caller.value

            #expect(hooksSawCancellation.current == [false])
        }
    }

    @Test func aScopeEndedByACancelledRequestStillClosesWhatItBuilt() async throws {
        try await withAsyncWatchdog {
            let root = Container(name: "app")
            let closed = Guarded(0)
            root.register(ShutdownProbe.self, lifetime: .perContainer) { _ in ShutdownProbe("handler") }
                .onShutdown { _ in
                    try await Task.sleep(for: .milliseconds(5))
                    closed.withLock { $0 += 1 }
                }

            let request = Task {
                try await root.withScope(name: "request") { scope in
                    _ = try await scope.resolveAsync(ShutdownProbe.self)
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            try await request.value

            #expect(closed.current == 1)
        }
    }
}
