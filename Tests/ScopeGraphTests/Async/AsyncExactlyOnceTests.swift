import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Exactly once, without blocking threads: any number of tasks awaiting the first build of an
/// async cached instance get one instance from one factory run; waiters suspend instead of
/// holding threads of the cooperative pool; the build is detached from every caller's
/// cancellation; a failed build is reported to every waiter and caches nothing.
@Suite struct AsyncExactlyOnceTests {
    final class Slow: Sendable {}

    /// Who waits for a build, which takes one of the two ways of waiting: a task's own
    /// `resolveAsync` waits for the build alone (a reader of the slot), a request made inside
    /// another resolve waits as part of that resolve.
    enum Asker: CaseIterable, Sendable, CustomTestStringConvertible {
        /// `container.resolveAsync(T.self)` from a task.
        case task
        /// An async factory's `resolver.resolveAsync(T.self)`, in a `unique` registration of
        /// `Asking<T>` resolved from a task.
        case factory

        var testDescription: String { self == .task ? "a task's own resolveAsync" : "an async factory's request" }

        final class Asking<T: Sendable>: Sendable {
            let value: T
            init(_ value: T) { self.value = value }
        }

        /// Registers what `resolve` needs in `container`.
        func prepare<T: Sendable>(_ container: Container, for type: T.Type) {
            guard self == .factory else { return }
            container.register(Asking<T>.self) { r in Asking(try await r.resolveAsync(T.self)) }
        }

        /// A container "root" prepared for asking for `Slow` this way.
        func rootPreparedForSlow() -> Container {
            let container = Container(name: "root")
            prepare(container, for: Slow.self)
            return container
        }

        /// Starts a task that asks for `T` this way; returns once it has asked and had time to
        /// begin waiting.
        func startWaiter<T: Sendable>(for type: T.Type, from container: Container) async
            -> Task<Result<T, any Error>, Never>
        {
            let asked = Counter()
            let waiter = Task {
                asked.increment()
                return await Result { try await resolve(T.self, from: container) }
            }
            await waitUntil(atMost: 30) { asked.value == 1 }
            await letTasksSettle()
            return waiter
        }

        func resolve<T: Sendable>(_ type: T.Type, from container: Container) async throws -> T {
            switch self {
            case .task: try await container.resolveAsync(T.self)
            case .factory: try await container.resolveAsync(Asking<T>.self).value
            }
        }
    }

    /// Requests `count` tasks make of `resolve`, all issued while the build is held open:
    /// each task counts itself in `asked` just before it asks.
    static func resolveFromTasks<T: Sendable>(
        _ count: Int, asked: Counter, _ resolve: @escaping @Sendable (Int) async throws -> T
    ) async throws -> [T] {
        try await withThrowingTaskGroup(of: T.self) { group in
            for index in 0..<count {
                group.addTask {
                    asked.increment()
                    return try await resolve(index)
                }
            }
            var instances: [T] = []
            for try await instance in group { instances.append(instance) }
            return instances
        }
    }

    /// Registers `Slow` under `lifetime`: each build counts in `runs`, waits (at most 5 s) until
    /// `count` requests were `asked`, then sleeps 5 ms.
    static func registerSlowWaitingForAll(
        _ count: Int, asked: Counter, in container: Container, lifetime: Lifetime, runs: Counter
    ) {
        container.register(Slow.self, lifetime: lifetime) { _ in
            runs.increment()
            await waitUntil(atMost: 5) { asked.value >= count }
            try await Task.sleep(for: .milliseconds(5))
            return Slow()
        }
    }

    /// A thousand tasks that ask for one async singleton while its first build (which waits
    /// for all of them to ask, then sleeps 5 ms) is under way get one instance from one
    /// factory run; on two cores the waiting tasks do not starve the build.
    @Test(arguments: Asker.allCases)
    func aThousandTasksAwaitingOneAsyncSingletonGetOneInstanceFromOneBuild(asker: Asker) async throws {
        let count = 1000
        let container = asker.rootPreparedForSlow()
        let runs = Counter()
        let asked = Counter()
        Self.registerSlowWaitingForAll(count, asked: asked, in: container, lifetime: .singleton, runs: runs)
        let instances = try await withAsyncWatchdog(seconds: 30) {
            try await Self.resolveFromTasks(count, asked: asked) { _ in
                try await asker.resolve(Slow.self, from: container)
            }
        }
        guard let instances else { return }
        #expect(instances.count == count)
        #expect(instances.allSatisfy { $0 === instances[0] })
        #expect(runs.value == 1)
        #expect(try container.resolve(Slow.self) === instances[0])
    }

    /// The same for `perContainer`: a thousand tasks asking from two sibling children at once
    /// get one instance per child, each from one factory run.
    @Test func aThousandTasksAwaitingOneAsyncPerContainerInstanceGetOneInstancePerContainer() async throws {
        let count = 1000
        let root = Container(name: "root")
        let children = [root.makeChild(name: "left"), root.makeChild(name: "right")]
        let runs = Counter()
        let asked = Counter()
        Self.registerSlowWaitingForAll(count, asked: asked, in: root, lifetime: .perContainer, runs: runs)
        let perChild = try await withAsyncWatchdog(seconds: 30) { () -> [[Slow]] in
            let answers = try await Self.resolveFromTasks(count, asked: asked) { index in
                (index % 2, try await children[index % 2].resolveAsync(Slow.self))
            }
            var perChild: [[Slow]] = [[], []]
            for (child, instance) in answers { perChild[child].append(instance) }
            return perChild
        }
        guard let perChild else { return }
        #expect(perChild[0].count == count / 2 && perChild[1].count == count / 2)
        #expect(perChild[0].allSatisfy { $0 === perChild[0][0] })
        #expect(perChild[1].allSatisfy { $0 === perChild[1][0] })
        #expect(perChild[0][0] !== perChild[1][0])
        #expect(runs.value == 2)
    }

    /// A task cancelled while it waits for another task's build stops waiting with
    /// `CancellationError` itself (not wrapped in `ResolutionError`), before the build ends;
    /// the build goes on, uncancelled: the other callers get its instance, and the factory ran
    /// once.
    @Test(arguments: Asker.allCases)
    func cancellingAWaiterEndsItsWaitWithCancellationErrorAndTheBuildGoesOn(asker: Asker) async throws {
        let container = asker.rootPreparedForSlow()
        let held = GatedBuild<Slow>()
        let buildSawCancellation = Guarded<[Bool]>([])
        container.register(Slow.self, lifetime: .singleton) { _ in
            held.runs.increment()
            held.started.open()
            await held.gate.wait()
            buildSawCancellation.withLock { $0.append(Task.isCancelled) }
            return Slow()
        }
        defer { held.gate.open() }  // never leave the build suspended, whatever failed
        let builder = Task { try await container.resolveAsync(Slow.self) }
        guard try await withAsyncWatchdog(seconds: 10, { await held.started.wait() }) != nil else { return }
        let asked = Counter()
        let waiter = Task {
            asked.increment()
            return try await asker.resolve(Slow.self, from: container)
        }
        let bystander = Task {
            asked.increment()
            return try await asker.resolve(Slow.self, from: container)
        }
        await waitUntil { asked.value == 2 }
        await letTasksSettle()
        waiter.cancel()
        let cancelled = try await withAsyncWatchdog(seconds: 5) { await waiter.result }
        #expect(!held.gate.isOpen, "the cancelled waiter's outcome came while the build was still held")
        held.gate.open()
        let others = try await withAsyncWatchdog(seconds: 10) { () -> [Slow] in
            [try await builder.value, try await bystander.value]
        }
        if let cancelled {
            #expect(outcomeName(cancelled) == "CancellationError")
        }
        guard let others else { return }
        #expect(others[0] === others[1])
        #expect(held.runs.value == 1)
        #expect(buildSawCancellation.current == [false])
        #expect(try container.resolve(Slow.self) === others[0])
    }

    /// Cancelling the task whose request started the build also ends only that caller's wait,
    /// with `CancellationError`, while the factory is still running; the build completes for
    /// the others, uncancelled, and its instance is cached. For a `weakSingleton`, which no
    /// caller holds when it is published, the waiting task is handed the instance.
    @Test(arguments: [Lifetime.singleton, .weakSingleton])
    func cancellingTheTaskThatStartedTheBuildEndsItsWaitAndTheBuildCompletesForOthers(lifetime: Lifetime)
        async throws
    {
        let container = Container(name: "root")
        let runs = Counter()
        let started = AsyncLatch()
        let gate = AsyncLatch()
        let buildSawCancellation = Guarded<[Bool]>([])
        container.register(Slow.self, lifetime: lifetime) { _ in
            runs.increment()
            started.open()
            await gate.wait()
            buildSawCancellation.withLock { $0.append(Task.isCancelled) }
            return Slow()
        }
        defer { gate.open() }
        let starter = Task { try await container.resolveAsync(Slow.self) }
        guard try await withAsyncWatchdog(seconds: 10, { await started.wait() }) != nil else { return }
        // A task that waits for the build, started and settled before the starter is cancelled.
        let bystander = await startTasks(1) { _ in try await container.resolveAsync(Slow.self) }[0]
        starter.cancel()
        let cancelled = try await withAsyncWatchdog(seconds: 5) { await starter.result }
        #expect(!gate.isOpen, "the starter's outcome came while the build was still held")
        gate.open()
        let instance = try await withAsyncWatchdog(seconds: 10) { try await bystander.value.get() }
        if let cancelled {
            #expect(outcomeName(cancelled) == "CancellationError")
        }
        guard let instance else { return }
        #expect(runs.value == 1)
        #expect(buildSawCancellation.current == [false])
        #expect(try container.resolve(Slow.self) === instance)
    }

    /// A build that fails is reported to every caller that waited for it, as a
    /// `ResolutionError` of kind `.factoryFailed` carrying the factory's own error; nothing is
    /// cached, and the next resolve builds again.
    @Test(arguments: Asker.allCases)
    func aFailedBuildGivesEveryWaiterItsErrorAndTheNextResolveBuildsAgain(asker: Asker) async throws {
        let waiters = 10
        let container = asker.rootPreparedForSlow()
        let held = GatedBuild<Slow>()
        container.register(Slow.self, lifetime: .singleton) { _ in
            let run = held.runs.increment()
            guard run == 1 else { return Slow() }
            held.started.open()
            await held.gate.wait()
            throw Boom("first build")
        }
        defer { held.gate.open() }
        let starter = Task { await Result { try await container.resolveAsync(Slow.self) } }
        guard try await withAsyncWatchdog(seconds: 10, { await held.started.wait() }) != nil else { return }
        let asked = Counter()
        let waiting = (0..<waiters).map { _ in
            Task {
                asked.increment()
                return await Result { try await asker.resolve(Slow.self, from: container) }
            }
        }
        await waitUntil { asked.value == waiters }
        await letTasksSettle()
        #expect(held.runs.value == 1)
        held.gate.open()
        let outcomes = try await withAsyncWatchdog(seconds: 10) { () -> [Result<Slow, any Error>] in
            var outcomes = [await starter.value]
            for task in waiting { outcomes.append(await task.value) }
            return outcomes
        }
        guard let outcomes else { return }
        #expect(outcomes.count == waiters + 1)
        for outcome in outcomes {
            let error = outcome.resolutionError
            #expect(error?.kind.caseName == "factoryFailed", "\(outcomeName(outcome))")
            #expect(error?.kind.underlyingError as? Boom == Boom("first build"))
            #expect(error?.key.typeName == "Slow")
        }
        #expect(held.runs.value == 1, "every caller waited for the one build")
        let rebuilt = try await withAsyncWatchdog(seconds: 10) {
            [try await container.resolveAsync(Slow.self), try await container.resolveAsync(Slow.self)]
        }
        guard let rebuilt else { return }
        #expect(rebuilt[0] === rebuilt[1])
        #expect(held.runs.value == 2)
    }

    /// A thread's synchronous build that fails leaves nothing to wait for: the task that
    /// waited for it builds the instance itself, and the thread gets its own factory's error.
    @Test(arguments: Asker.allCases)
    func aTaskWaitingForAThreadsFailedBuildBuildsTheInstanceItself(asker: Asker) async throws {
        let container = asker.rootPreparedForSlow()
        let runs = Counter()
        let threadBuilding = Counter()
        let release = DispatchSemaphore(value: 0)
        // Released by the test; the limit only guards a hang.
        container.registerFirstBuildHeldThenFailing(
            Slow.self, runs: runs, started: threadBuilding, gate: release, atMost: 120, throwing: Boom("thread")
        ) { _ in Slow() }
        defer { release.signal() }
        // A thread of its own, started here: not through a task, which other suites' blocking
        // work may keep off the cooperative pool for tens of seconds under a sanitizer.
        let threadOutcome = Guarded<Result<Slow, any Error>?>(nil)
        _ = StartedThread { threadOutcome.withLock { $0 = Result { try container.resolve(Slow.self) } } }
        // Generous: under a sanitizer on a loaded machine a new thread may take seconds to run.
        guard await waitUntil(atMost: 30 * watchdogScale, { threadBuilding.value == 1 }) else {
            Issue.record("the thread's build did not start")
            return
        }
        let waiter = await asker.startWaiter(for: Slow.self, from: container)
        #expect(runs.value == 1, "the task waited for the thread's build")
        release.signal()
        typealias Outcomes = (thread: Result<Slow, any Error>, waiter: Result<Slow, any Error>)
        let outcomes = try await withAsyncWatchdog(seconds: 10) { () -> Outcomes? in
            guard await waitUntil(atMost: 10 * watchdogScale, { threadOutcome.current != nil }),
                let finished = threadOutcome.current
            else { return nil }
            return (finished, await waiter.value)
        }
        guard let (threadResult, waiterOutcome) = outcomes ?? nil else {
            Issue.record("the thread's resolve did not end")
            return
        }
        #expect(threadResult.resolutionError?.kind.underlyingError as? Boom == Boom("thread"))
        #expect(outcomeName(waiterOutcome) == "value", "the waiter got \(outcomeName(waiterOutcome))")
        #expect(runs.value == 2)
        #expect(try container.resolve(Slow.self) === waiterOutcome.get())
    }

    final class Part: Sendable {}
    final class Whole: Sendable {}

    /// A build discarded because another build of its resolve failed is not a failure of its
    /// own: a resolve that was waiting for it (and asked for nothing else) builds it again and
    /// gets an instance, instead of the other factory's error. (`Part` has an `onResolved`
    /// block, so it is incomplete until its resolve ends, and discarded when that fails.)
    @Test(arguments: Asker.allCases)
    func aWaiterForABuildDiscardedByItsResolvesFailureBuildsItAgain(asker: Asker) async throws {
        let container = Container(name: "root")
        asker.prepare(container, for: Part.self)
        let partRuns = Counter()
        let partStarted = AsyncLatch()
        let gate = AsyncLatch()
        container.register(Part.self, lifetime: .singleton) { _ in
            let run = partRuns.increment()
            if run == 1 {
                partStarted.open()
                await gate.wait()
            }
            return Part()
        }.onResolved { _, _ in }
        container.register(Whole.self, lifetime: .singleton) { r in
            _ = try await r.resolveAsync(Part.self)
            throw Boom("whole")
        }
        defer { gate.open() }
        let whole = Task { await Result { try await container.resolveAsync(Whole.self) } }
        guard try await withAsyncWatchdog(seconds: 10, { await partStarted.wait() }) != nil else { return }
        let part = await asker.startWaiter(for: Part.self, from: container)
        gate.open()
        let outcomes = try await withAsyncWatchdog(seconds: 10) {
            [await whole.value.map { _ in () }, await part.value.map { _ in () }]
        }
        guard let outcomes else { return }
        #expect(outcomes[0].resolutionError?.kind.underlyingError as? Boom == Boom("whole"))
        #expect(outcomeName(outcomes[1]) == "value", "the waiter got \(outcomeName(outcomes[1]))")
        #expect(partRuns.value == 2, "the discarded Part was built again for the waiter")
    }
}
