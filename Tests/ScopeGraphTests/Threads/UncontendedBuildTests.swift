import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// Uncontended builds (`Engine/Coordination/UncontendedBuild.swift`): a cached instance that
/// nobody else wants is built without the coordinator's lock; whoever asks for it meanwhile
/// (a thread, a task reading it, the build's own cycle) makes the build the coordinator's, and
/// then waits for it, gets it, or gets the cycle error, as with any build.
@Suite struct UncontendedBuildTests: ServiceFixtures {
    /// The slot of `type`'s singleton registration in `container`.
    private static func singletonSlot<T>(_ type: T.Type, in container: Container) -> AnySlot? {
        container.withState { $0.registrations[Key(T.self, tag: nil)]?.entry.ownerSlot }
    }

    /// Polls, for at most five seconds (scaled for sanitizers), until `slot`'s build is the
    /// coordinator's.
    private static func waitUntilManaged(_ slot: AnySlot) -> Bool {
        let deadline = Date().addingTimeInterval(5 * watchdogScale)
        while Date() < deadline {
            if slot.claim.load(ordering: .sequentiallyConsistent) == AnySlot.managed { return true }
            usleep(1_000)
        }
        return false
    }

    @Test func aFirstSingletonBuildAndAPerContainerBuildInAFreshChildTakeNoCoordinatorLock() throws {
        let root = Container(name: "root")
        root.register(Shared.self, lifetime: .singleton) { _ in Shared() }
        root.register(Helper.self, lifetime: .unique) { _ in Helper() }
        root.register(Handler.self, lifetime: .perContainer) { r in
            Handler(shared: try r.resolve(Shared.self), helper: try r.resolve(Helper.self))
        }
        // The thread's spare context, if an earlier test's resolve on this thread used the
        // coordinator, is reset under its lock when it is taken: taken here, before counting.
        _ = try root.resolve(Helper.self)
        let before = LockChecks.coordinatorLocksTakenByThisThread
        let shared = try root.resolve(Shared.self)
        for _ in 0..<3 {
            let request = root.makeChild(name: "request")
            let handler = try request.resolve(Handler.self)
            #expect(handler.shared === shared)
            #expect(try request.resolve(Handler.self) === handler)
        }
        #expect(LockChecks.coordinatorLocksTakenByThisThread == before)
    }

    @Test func beginningARequestScopesShutdownTakesNoCoordinatorLock() throws {
        let root = Container(name: "root")
        let closed = Counter()
        root.register(Config.self, lifetime: .perContainer) { _ in Config("request") }
            .onShutdown { _ in _ = closed.increment() }
        let request = root.makeChild(name: "request")
        _ = try request.resolve(Config.self)
        let before = LockChecks.coordinatorLocksTakenByThisThread
        // What `shutdown()` and `withScope` do under a lock before the hooks run: mark the
        // container and close its log, in the log's critical section.
        let records = request.beginShutdown()
        #expect(LockChecks.coordinatorLocksTakenByThisThread == before)
        #expect(records.count == 1, "the request's instance was not recorded for its hook")
        #expect(request.isShutDown)
        #expect(closed.value == 0)
    }

    /// A `Slow` singleton whose first build, once it runs, waits until `asks` is signalled
    /// (whoever asks meanwhile signals it) and then until that request has made the build the
    /// coordinator's, which `promoted` records.
    private struct ObservedBuild: Sendable {
        let runs = Counter()
        let asks = DispatchSemaphore(value: 0)
        let promoted = Guarded(false)

        func register(in container: Container) {
            container.register(Slow.self, lifetime: .singleton) { [self] _ in
                _ = runs.increment()
                if asks.wait(timeout: .now() + 5 * watchdogScale) == .success,
                    let slot = UncontendedBuildTests.singletonSlot(Slow.self, in: container)
                {
                    promoted.withLock { $0 = UncontendedBuildTests.waitUntilManaged(slot) }
                }
                return Slow()
            }
        }
    }

    @Test func aThreadAskingDuringAnUncontendedBuildWaitsForItAndGetsTheOneInstance() {
        let container = Container(name: "app")
        defer { container.removeAll() }  // the factory captures the container
        let build = ObservedBuild()
        build.register(in: container)
        let results = Guarded<[ObjectIdentifier]>([])
        let finished = runOnThreads(2) { index in
            if index == 1 {
                // Asks once the first thread's build has begun.
                let deadline = Date().addingTimeInterval(5 * watchdogScale)
                while build.runs.value == 0, Date() < deadline { usleep(500) }
                build.asks.signal()
            }
            guard let slow = try? container.resolve(Slow.self) else { return }
            results.withLock { $0.append(ObjectIdentifier(slow)) }
        }
        #expect(finished)
        #expect(build.promoted.current, "the second thread did not make the build the coordinator's")
        #expect(build.runs.value == 1)
        #expect(results.current.count == 2 && Set(results.current).count == 1)
    }

    @Test func aTaskReadingDuringAnUncontendedBuildGetsTheInstance() async throws {
        let container = Container(name: "app")
        defer { container.removeAll() }  // the factory captures the container
        let build = ObservedBuild()
        build.register(in: container)
        _ = try await withAsyncWatchdog {
            async let built: Slow? = runOnNewThread { try? container.resolve(Slow.self) }
            guard await waitUntil(atMost: 30 * watchdogScale, { build.runs.value == 1 }) else { return }
            build.asks.signal()
            let read = try? await container.resolveAsync(Slow.self)
            let builtInstance = await built
            #expect(read != nil && read === builtInstance)
        }
        #expect(build.promoted.current, "the reading task did not make the build the coordinator's")
        #expect(build.runs.value == 1)
    }

    @Test func aSingletonThatAsksForItselfThroughAnotherIsACycleWithItsPath() throws {
        let container = Container(name: "app")
        container.register(Left.self, lifetime: .singleton, needing: Right.self) { Left() }
        container.register(Right.self, lifetime: .perContainer, needing: Left.self) { Right() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Left.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["Left", "Right", "Left"])
        // Nothing is left claimed: both build once the cycle is broken.
        container.register(Right.self, lifetime: .perContainer) { _ in Right() }
        _ = try container.resolve(Left.self)
    }

    @Test func aFailedUncontendedBuildLeavesTheSlotFreeForTheNextRequest() throws {
        let container = Container(name: "app")
        let runs = Counter()
        container.register(Slow.self, lifetime: .singleton) { _ in
            if runs.increment() == 1 { throw Boom() }
            return Slow()
        }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(Slow.self) }
        let slow = try container.resolve(Slow.self)
        #expect(try container.resolve(Slow.self) === slow)
        #expect(runs.value == 2)
    }

    @Test(arguments: [false, true])
    func aBuildWhoseContainerBeginsShuttingDownWhileItsFactoryRunsFails(withHook: Bool) async throws {
        let container = Container(name: "app")
        let closed = Counter()
        let started = AsyncLatch()
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let registration = container.register(Slow.self, lifetime: .singleton) { _ in
            started.open()
            blockCallingThread(on: release, atMost: 120)  // released by the test; the limit only guards a hang
            return Slow()
        }
        if withHook { registration.onShutdown { _ in _ = closed.increment() } }
        let resolve = Task { await runOnNewThread { Result { try container.resolve(Slow.self) } } }
        guard await started.wait(atMost: 30 * watchdogScale) else {
            Issue.record("the build did not start")
            return
        }
        let shutdown = Task { try await container.shutdown() }
        guard await waitUntil(atMost: 30 * watchdogScale, { container.isShutDown }) else {
            Issue.record("the shutdown did not begin")
            return
        }
        release.signal()
        #expect(outcomeName(await resolve.value) == "containerShutDown")
        try await shutdown.value
        #expect(closed.value == 0)
    }

    @Test func anOnShutdownHookAddedWhileTheInstanceIsBuiltClosesIt() async throws {
        let container = Container(name: "app")
        let closed = Counter()
        let registration = Guarded<Registration<Slow>?>(nil)
        registration.withLock {
            $0 = container.register(Slow.self, lifetime: .singleton) { _ in
                // The first hook comes after the build began without the coordinator, before
                // the instance is published: the publication must record it for shutdown.
                registration.current?.onShutdown { _ in _ = closed.increment() }
                return Slow()
            }
        }
        // The factory holds the registration: a cycle, broken here.
        defer { registration.withLock { $0 = nil } }
        _ = try container.resolve(Slow.self)
        try await container.shutdown()
        #expect(closed.value == 1)
    }
}
