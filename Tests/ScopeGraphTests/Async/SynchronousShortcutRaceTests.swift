import Dispatch
import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// `resolveAsync` of an unbuilt cached lifetime with a synchronous factory runs the synchronous
/// resolve inside `ResolutionContext.shortcut` (commit e7677da). These tests race it with other
/// tasks and with synchronous resolves on plain threads, and pin its rules: one instance from
/// one factory run per slot; a task that finds the slot being built waits suspended, as a
/// reader; to a thread the build is an async resolve's (`.requiresAsync`, never a wait); a
/// failed build caches nothing; the thread's context is reused without its `isAsync` mark;
/// cancellation only ends waits.
@Suite struct SynchronousShortcutRaceTests {
    final class Store: Sendable {
        let run: Int
        init(run: Int) { self.run = run }
    }

    final class Held: Sendable {}
    final class Warm: Sendable {}

    /// The outcomes of one race in one container: its tasks' `resolveAsync`, its threads'
    /// synchronous `resolve`.
    struct Race<T: Sendable>: Sendable {
        var tasks: [Outcome<T>]
        var threads: [Outcome<T>]
    }

    /// Starts, in each of `containers`, `tasks` tasks calling `resolveAsync(T.self)` and
    /// `threads` new threads calling `resolve(T.self)`, all released at once, and returns their
    /// outcomes, per container in order. Bound it with a watchdog.
    static func race<T: Sendable>(
        _ type: T.Type, in containers: [Container], tasks: Int, threads: Int
    ) async -> [Race<T>] {
        let go = AsyncLatch()
        let threadsGo = DispatchSemaphore(value: 0)
        var taskHandles: [[Task<Outcome<T>, Never>]] = []
        var threadHandles: [[Task<Outcome<T>, Never>]] = []
        for container in containers {
            taskHandles.append(
                (0..<tasks).map { _ in
                    Task.detached {
                        await go.wait()
                        return await Result { try await container.resolveAsync(T.self) }
                    }
                })
            threadHandles.append(
                (0..<threads).map { _ in
                    Task {
                        await runOnNewThread {
                            _ = threadsGo.wait(timeout: .now() + 10)
                            return Result { try container.resolve(T.self) }
                        }
                    }
                })
        }
        go.open()
        for _ in 0..<(threads * containers.count) { threadsGo.signal() }
        var races: [Race<T>] = []
        for (taskGroup, threadGroup) in zip(taskHandles, threadHandles) {
            var race = Race<T>(tasks: [], threads: [])
            for task in taskGroup { race.tasks.append(await task.value) }
            for thread in threadGroup { race.threads.append(await thread.value) }
            races.append(race)
        }
        return races
    }

    /// What is wrong with one race's outcomes when exactly one instance, `expected`, must come
    /// out of it: every task gets it, every thread gets it or `.requiresAsync`.
    static func problems<T: AnyObject>(of race: Race<T>, expected: T?) -> [String] {
        var problems: [String] = []
        for (index, outcome) in race.tasks.enumerated() where outcome.successValue !== expected || expected == nil {
            problems.append("task \(index): \(outcomeName(outcome)), not the instance")
        }
        for (index, outcome) in race.threads.enumerated() {
            if case .success(let value) = outcome, value === expected { continue }
            if outcomeName(outcome) == "requiresAsync" { continue }
            problems.append("thread \(index): \(outcomeName(outcome)), not the instance")
        }
        return problems
    }

    /// A short pause inside a factory, blocking its thread for at most 0.3 ms: makes the others
    /// likely to arrive while the build goes on (nothing depends on it).
    static func widenTheRace() {
        usleep(UInt32.random(in: 0...300))
    }

    /// Registers `Store` under `lifetime` with a factory that widens the race and numbers its
    /// runs; returns the count of runs.
    @discardableResult
    static func registerRacingStore(in container: Container, lifetime: Lifetime) -> Counter {
        let runs = Counter()
        container.register(Store.self, lifetime: lifetime) { _ in
            let run = runs.increment()
            widenTheRace()
            return Store(run: run)
        }
        return runs
    }

    /// A task executor whose jobs run on dispatch worker threads, not the cooperative pool's:
    /// a task that prefers it may block its thread (a factory held open on a semaphore)
    /// without taking one of the pool's few threads (two on two cores) from the other tests.
    final class BlockableExecutor: TaskExecutor, @unchecked Sendable {
        // @unchecked: `queue` is immutable and thread-safe.
        static let shared = BlockableExecutor()
        private let queue = DispatchQueue(label: "SynchronousShortcutRaceTests", attributes: .concurrent)

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// How long a test waits for a held factory to start: other suites' synchronous tests may
    /// hold every thread of the cooperative pool for seconds (more under ThreadSanitizer).
    static let startLimit = 30 * watchdogScale

    /// Blocks the calling factory's thread until `gate` is signalled, for at most `seconds`;
    /// counts a timeout in `timeouts` (what depended on the build being held is then not
    /// checked, unless the timeout is the failure).
    static func hold(on gate: DispatchSemaphore, timeouts: Counter, seconds: Double = 5) {
        if gate.wait(timeout: .now() + seconds) == .timedOut { timeouts.increment() }
    }

    /// Starts a shortcut build of `container`'s `Store` (a task on `BlockableExecutor`, whose
    /// factory the test holds open) and, once `started()` says the factory runs, `readers`
    /// tasks asking for it, given time to reach their wait. Nil, with an issue recorded, when
    /// the factory did not start.
    static func shortcutBuildWithReaders(
        of container: Container, readers: Int, startedWhen started: @escaping @Sendable () -> Bool
    ) async -> (builder: Task<Outcome<Store>, Never>, readers: [Task<Outcome<Store>, Never>])? {
        let builder = Task.detached(executorPreference: BlockableExecutor.shared) {
            await Result { try await container.resolveAsync(Store.self) }
        }
        guard await waitUntil(atMost: startLimit, started) else {
            Issue.record("the factory did not start")
            return nil
        }
        let readerTasks = (0..<readers).map { _ in
            Task.detached { await Result { try await container.resolveAsync(Store.self) } }
        }
        await letTasksSettle()
        return (builder, readerTasks)
    }

    /// How `first` and `readers` ended, awaited under a watchdog: nil when it fired.
    static func outcomes(
        of first: Task<Outcome<Store>, Never>, and readers: [Task<Outcome<Store>, Never>]
    ) async throws -> (first: Outcome<Store>, readers: [Outcome<Store>])? {
        try await withAsyncWatchdog(seconds: 10) { (await first.value, await awaitOutcomes(of: readers)) }
    }

    /// A container whose `Store` singleton's factory holds every run open until `gate` is
    /// signalled (at most 10 s, scaled under sanitizers), counting runs, returns and timeouts.
    struct HeldStore: Sendable {
        let container = Container(name: "root")
        let runs = Counter()
        let returned = Counter()
        let timeouts = Counter()
        let gate = DispatchSemaphore(value: 0)

        init() {
            let (runs, returned, timeouts, gate) = (runs, returned, timeouts, gate)
            container.register(Store.self, lifetime: .singleton) { _ in
                let run = runs.increment()
                SynchronousShortcutRaceTests.hold(on: gate, timeouts: timeouts, seconds: 10 * watchdogScale)
                returned.increment()
                return Store(run: run)
            }
        }
    }

    // MARK: Exactly once

    /// Over many rounds, tasks (`resolveAsync`) and threads (`resolve`) racing on a fresh
    /// cached instance with a synchronous factory get one instance from one factory run: every
    /// task gets it, every thread gets it or `.requiresAsync` (never another instance, never a
    /// hang), and afterwards a synchronous resolve returns it.
    @Test(arguments: [Lifetime.singleton, .weakSingleton, .eagerSingleton, .perContainer])
    func tasksAndThreadsRacingOnAFreshInstanceGetOneInstanceFromOneRun(lifetime: Lifetime) async throws {
        try await checkRoundsInNewContainers(40) { _, container in
            var problems: [String] = []
            let runs = Self.registerRacingStore(in: container, lifetime: lifetime)
            guard let race = await Self.race(Store.self, in: [container], tasks: 6, threads: 3).first else {
                return problems
            }
            let expected = race.tasks.first?.successValue
            problems += Self.problems(of: race, expected: expected)
            if runs.value != 1 { problems.append("\(runs.value) runs") }
            if let after = try? container.resolve(Store.self), after !== expected {
                problems.append("a synchronous resolve afterwards got another instance")
            }
            withExtendedLifetime(race) {}
            return problems
        }
    }

    /// Over many rounds, the same race for a `perContainer` instance in several children at
    /// once: each child's tasks and threads get that child's one instance (built once per
    /// child), and no two children share one.
    @Test func perContainerRacesInSeveralChildrenAtOnceGetOneInstancePerChild() async throws {
        try await checkRounds(30) { round in
            var problems: [String] = []
            let root = Container(name: "root \(round)")
            let runs = Self.registerRacingStore(in: root, lifetime: .perContainer)
            let children = (0..<4).map { root.makeChild(name: "child \($0)") }
            let races = await Self.race(Store.self, in: children, tasks: 4, threads: 2)
            var instances: [ObjectIdentifier] = []
            for (child, race) in zip(children, races) {
                let expected = race.tasks.first?.successValue
                problems += Self.problems(of: race, expected: expected)
                if let expected { instances.append(ObjectIdentifier(expected)) }
                if let after = try? child.resolve(Store.self), after !== expected {
                    problems.append("\(child.name): another instance afterwards")
                }
            }
            if Set(instances).count != children.count {
                problems.append("\(Set(instances).count) instances for \(children.count) children")
            }
            if runs.value != children.count { problems.append("\(runs.value) runs") }
            withExtendedLifetime(races) {}
            return problems
        }
    }

    /// A `weakSingleton` whose instance is dropped after every round is built again in the
    /// next one, still once per round: the racers of a round share that round's instance, and
    /// the previous round's instance is gone.
    @Test func aWeakSingletonDroppedBetweenRoundsIsBuiltOncePerRound() async throws {
        let rounds = 40
        let container = Container(name: "root")
        let runs = Self.registerRacingStore(in: container, lifetime: .weakSingleton)
        try await withAsyncWatchdog(seconds: 60) {
            var previous = WeakProbe<Store>(nil)
            await runRounds(rounds) { round in
                var problems: [String] = []
                let last = previous
                if await !waitUntil(atMost: 2, { last.isFreed }) {
                    problems.append("the last round's instance is alive")
                }
                let before = runs.value
                guard let race = await Self.race(Store.self, in: [container], tasks: 5, threads: 2).first else {
                    return problems
                }
                let expected = race.tasks.first?.successValue
                problems += Self.problems(of: race, expected: expected)
                if runs.value != before + 1 { problems.append("\(runs.value - before) runs") }
                if expected?.run != before + 1 { problems.append("not this round's instance") }
                previous = WeakProbe(expected)
                return problems
            }.expectNoFailures()
        }
    }

    // MARK: Waiting

    /// Fifty tasks asking for a singleton that a plain thread is building (its factory held
    /// open) decline to block at their acquire and wait suspended, as readers: the cooperative
    /// pool (two threads on two cores) still runs a new task before the build ends, which it
    /// could not if they blocked its threads; then all get the thread's instance, one run.
    @Test func tasksFindingAThreadsBuildInProgressWaitSuspendedNotBlocked() async throws {
        // A plain thread builds here: if the tasks blocked the pool, only the hold's timeout ends it.
        let held = HeldStore()
        defer { held.gate.signal() }
        let (container, runs, returned, timeouts, gate) = (
            held.container, held.runs, held.returned, held.timeouts, held.gate
        )
        let thread = Task { await runOnNewThread { Result { try container.resolve(Store.self) } } }
        guard await waitUntil(atMost: Self.startLimit, { runs.value == 1 }) else {
            Issue.record("the factory did not start")
            return
        }
        let asked = Counter()
        let readers = (0..<50).map { _ in
            Task.detached {
                asked.increment()
                return await Result { try await container.resolveAsync(Store.self) }
            }
        }
        await waitUntil(atMost: Self.startLimit) { asked.value == readers.count }
        await letTasksSettle()
        let returnedBeforeTheCanary = await Task.detached { returned.value }.value
        gate.signal()
        guard let (threadOutcome, readerOutcomes) = try await Self.outcomes(of: thread, and: readers) else { return }
        #expect(returnedBeforeTheCanary == 0 && timeouts.value == 0, "the pool was blocked until the build ended")
        let instance = try threadOutcome.get()
        #expect(readerOutcomes.allSatisfy { $0.successValue === instance }, "\(readerOutcomes.map(outcomeName))")
        #expect(runs.value == 1)
    }

    // MARK: Failure

    /// Over many rounds, a synchronous factory whose first run throws, raced by tasks and
    /// threads: nothing of the failed run is cached. Only the party whose resolve ran that
    /// factory gets its error; the others (tasks that waited for it as readers included) find
    /// the slot free again and share one new build, as readers of a thread's failed build do
    /// (`AsyncReaderTests.asyncReadersOfAThreadsFailedBuildShareOneRebuild`): two runs, one
    /// instance.
    @Test func aFailedFirstBuildCachesNothingAndTheOthersShareOneRebuild() async throws {
        try await checkRoundsInNewContainers(40) { _, container in
            var problems: [String] = []
            let runs = Counter()
            container.register(Store.self, lifetime: .singleton) { _ in
                let run = runs.increment()
                Self.widenTheRace()
                if run == 1 { throw Boom("first") }
                return Store(run: run)
            }
            guard let race = await Self.race(Store.self, in: [container], tasks: 6, threads: 3).first else {
                return problems
            }
            let isFirstError = { (outcome: Outcome<Store>) in
                outcome.resolutionError?.kind.underlyingError as? Boom == Boom("first")
            }
            let failed = (race.tasks + race.threads).filter(isFirstError)
            let cached = try? container.resolve(Store.self)
            if failed.count != 1 { problems.append("\(failed.count) parties got the error") }
            if cached?.run != 2 { problems.append("cached \(String(describing: cached?.run))") }
            let others = Race(
                tasks: race.tasks.filter { !isFirstError($0) }, threads: race.threads.filter { !isFirstError($0) })
            problems += Self.problems(of: others, expected: cached)
            if runs.value != 2 { problems.append("\(runs.value) runs") }
            return problems
        }
    }

    /// A task's shortcut build held open (its synchronous factory blocked on a semaphore the
    /// test controls) that then fails: the tasks waiting for it as readers are woken, find
    /// nothing built and nobody building, and share one new build; the builder gets the error.
    @Test func readersOfAFailedShortcutBuildShareOneRebuild() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        let started = Counter()
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        container.registerFirstBuildHeldThenFailing(
            Store.self, runs: runs, started: started, gate: gate, atMost: 5, throwing: Boom("held"), Store.init(run:))
        guard
            let (builder, readers) = await Self.shortcutBuildWithReaders(
                of: container, readers: 8, startedWhen: { started.value == 1 })
        else { return }
        gate.signal()
        guard let (builderOutcome, readerOutcomes) = try await Self.outcomes(of: builder, and: readers) else { return }
        let cached = try container.resolve(Store.self)
        #expect(builderOutcome.resolutionError?.kind.underlyingError as? Boom == Boom("held"))
        #expect(
            readerOutcomes.allSatisfy { $0.successValue === cached }, "\(readerOutcomes.map(outcomeName))")
        #expect(runs.value == 2)
    }

    // MARK: The context afterwards

    /// A task's shortcut build leaves its context, marked `isAsync`, as its thread's spare; a
    /// plain synchronous `resolve` that follows on that thread (same job, no suspension
    /// between) reuses it, and its build, held open, is an ordinary synchronous build: a
    /// resolve on another thread waits for it and gets its instance, instead of
    /// `.requiresAsync`. Then the reverse order in the same job: the spare of that synchronous
    /// build, reused by a shortcut build, is marked `isAsync` again (a thread gets
    /// `.requiresAsync` from a shortcut build held open).
    @Test func aLaterSynchronousBuildOnAShortcutsThreadIsWaitedFor() async throws {
        try await checkRoundsInNewContainers(5) { round, container in
            var problems: [String] = []
            let started = Counter()
            let gate = DispatchSemaphore(value: 0)
            let threads = Guarded<[String]>([])
            container.register(Store.self, lifetime: .singleton) { _ in Store(run: 0) }
            container.register(Held.self, lifetime: .singleton) { _ in
                started.increment()
                blockCallingThread(on: gate, atMost: 5)
                return Held()
            }
            let builder = Task.detached(executorPreference: BlockableExecutor.shared) { () -> Outcome<Held> in
                let before = pthread_self()
                _ = try? await container.resolveAsync(Store.self)
                if pthread_equal(before, pthread_self()) == 0 {
                    threads.withLock { $0.append("the shortcut build ran on another thread") }
                }
                return Result { try container.resolve(Held.self) }
            }
            guard await waitUntil(atMost: Self.startLimit, { started.value == 1 }) else {
                gate.signal()
                problems.append("the held build did not start")
                return problems
            }
            let waiter = Task { await runOnNewThread { Result { try container.resolve(Held.self) } } }
            await letTasksSettle()
            gate.signal()
            let built = await builder.value
            let waited = await waiter.value
            problems += threads.current.map { "\($0)" }
            if outcomeName(built) != "value" { problems.append("builder \(outcomeName(built))") }
            if waited.successValue == nil || waited.successValue !== built.successValue {
                problems.append("the waiting thread got \(outcomeName(waited))")
            }
            problems += await Self.shortcutAfterASynchronousBuildIsAsync(round: round)
            return problems
        }
    }

    /// The reverse order, for `aLaterSynchronousBuildOnAShortcutsThreadIsWaitedFor`: in one job,
    /// a plain synchronous build, then a shortcut build (held open) that reuses its spare; a
    /// thread that needs the shortcut's instance meanwhile gets `.requiresAsync`, then, after
    /// the build, the instance. Returns the problems found.
    static func shortcutAfterASynchronousBuildIsAsync(round: Int) async -> [String] {
        var problems: [String] = []
        let container = Container(name: "reverse \(round)")
        let started = Counter()
        let timeouts = Counter()
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        container.register(Warm.self, lifetime: .singleton) { _ in Warm() }
        container.register(Held.self, lifetime: .singleton) { _ in
            started.increment()
            // A thread that waits for this build (the failure) returns only when it ends.
            Self.hold(on: gate, timeouts: timeouts, seconds: 5 * watchdogScale)
            return Held()
        }
        let builder = Task.detached(executorPreference: BlockableExecutor.shared) { () -> Outcome<Held> in
            _ = try? container.resolve(Warm.self)
            return await Result { try await container.resolveAsync(Held.self) }
        }
        guard await waitUntil(atMost: Self.startLimit, { started.value == 1 }) else {
            return ["reverse: the held build did not start"]
        }
        let refused = await runOnNewThread { Result { try container.resolve(Held.self) } }
        gate.signal()
        let built = await builder.value
        if outcomeName(refused) != "requiresAsync" {
            problems.append("reverse: a thread got \(outcomeName(refused)) during the shortcut build")
        }
        if built.successValue == nil || (try? container.resolve(Held.self)) !== built.successValue {
            problems.append("reverse: builder \(outcomeName(built)), not the cached instance")
        }
        return problems
    }

    /// A task started with `Task.immediate` inside a synchronous factory runs on the thread of
    /// that synchronous resolve, whose context is bound there; its `resolveAsync` of an unbuilt
    /// synchronous singleton must not turn that resolve into an async one: a thread that needs
    /// the outer instance meanwhile waits for the build and gets it, and the task gets its
    /// instance. The shortcut's synchronous build once took the joined resolve for a fresh one
    /// (debug builds stopped at an assertion; release builds set `isAsync` on the outer
    /// resolve, and the waiting thread threw `.requiresAsync`); it now builds only in a fresh
    /// resolve. Run in a child process (an exit test), so that a broken assertion fails this
    /// test instead of stopping the run.
    @Test func aTaskStartedImmediatelyInsideASynchronousFactoryLeavesThatResolveSynchronous() async {
        await #expect(processExitsWith: .success) {
            let outcomes = await SynchronousShortcutRaceTests.immediateTaskInsideASynchronousFactory()
            if outcomes != ["value", "value", "value"] {
                FileHandle.standardError.write(Data("outcomes: \(outcomes)\n".utf8))
                exit(EXIT_FAILURE)
            }
        }
    }

    /// The scenario of `aTaskStartedImmediatelyInsideASynchronousFactoryLeavesThatResolveSynchronous`:
    /// the outcomes of the immediate task, of the thread building `Held` (whose factory starts
    /// that task, then is held open) and of another thread that needs `Held` meanwhile.
    static func immediateTaskInsideASynchronousFactory() async -> [String] {
        let container = Container(name: "root")
        let started = Counter()
        let timeouts = Counter()
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let inner = Guarded<Task<String, Never>?>(nil)
        container.register(Warm.self, lifetime: .singleton) { _ in Warm() }
        container.register(Held.self, lifetime: .singleton) { _ in
            // Runs here, inside this synchronous resolve, up to its first suspension (none).
            let task = Task.immediate { outcomeName(await Result { try await container.resolveAsync(Warm.self) }) }
            inner.withLock { $0 = task }
            started.increment()
            Self.hold(on: gate, timeouts: timeouts)
            return Held()
        }
        let builder = Task { await runOnNewThread { outcomeName(Result { try container.resolve(Held.self) }) } }
        guard await waitUntil(atMost: Self.startLimit, { started.value == 1 }) else {
            return ["the build did not start"]
        }
        let other = Task { await runOnNewThread { outcomeName(Result { try container.resolve(Held.self) }) } }
        await letTasksSettle()
        gate.signal()
        let outcomes = [await inner.current?.value ?? "no task", await builder.value, await other.value]
        return timeouts.value == 0 ? outcomes : ["value", "value", "value"]
    }

    // MARK: Cancellation

    /// Over many rounds, tasks cancelled before they ask race on a fresh singleton: the one
    /// that finds it unbuilt still builds it (cancellation only ends waits); the others get
    /// that instance or, if they had to wait for it, `CancellationError`; one factory run.
    @Test func cancelledTasksRacingOnAnUnbuiltSingletonStillBuildItOnce() async throws {
        try await checkRoundsInNewContainers(60) { _, container in
            var problems: [String] = []
            let runs = Self.registerRacingStore(in: container, lifetime: .singleton)
            let go = AsyncLatch()
            let tasks = (0..<6).map { _ in
                Task.detached { () -> Outcome<Store> in
                    withUnsafeCurrentTask { $0?.cancel() }
                    await go.wait()
                    return await Result { try await container.resolveAsync(Store.self) }
                }
            }
            go.open()
            var outcomes: [Outcome<Store>] = []
            for task in tasks { outcomes.append(await task.value) }
            let cached = try? container.resolve(Store.self)
            if cached == nil { problems.append("nothing cached") }
            if !outcomes.contains(where: { $0.successValue != nil }) {
                problems.append("no task built it: \(outcomes.map(outcomeName))")
            }
            for outcome in outcomes where outcome.successValue !== cached {
                if outcomeName(outcome) != "CancellationError" {
                    problems.append("\(outcomeName(outcome))")
                }
            }
            if runs.value != 1 { problems.append("\(runs.value) runs") }
            return problems
        }
    }

    /// A task's shortcut build held open: cancelled readers of it throw `CancellationError`
    /// while the build still goes on (their outcomes come before the factory returns); the
    /// build then ends, and the requester and the other readers get its instance, from one run.
    @Test func cancelledReadersOfAShortcutBuildStopWaitingWhileTheBuildGoesOn() async throws {
        let held = HeldStore()
        defer { held.gate.signal() }
        let (container, runs, returned, timeouts, gate) = (
            held.container, held.runs, held.returned, held.timeouts, held.gate
        )
        guard
            let (builder, readers) = await Self.shortcutBuildWithReaders(
                of: container, readers: 6, startedWhen: { runs.value == 1 })
        else { return }
        for reader in readers.prefix(3) { reader.cancel() }
        let cancelled = try await withAsyncWatchdog(seconds: 10) { () -> ([Outcome<Store>], Int) in
            var outcomes: [Outcome<Store>] = []
            for reader in readers.prefix(3) { outcomes.append(await reader.value) }
            return (outcomes, returned.value)
        }
        gate.signal()
        let rest = try await Self.outcomes(of: builder, and: Array(readers.dropFirst(3)))
        guard let (cancelledOutcomes, returnedMeanwhile) = cancelled, let (builderOutcome, others) = rest else {
            return
        }
        if timeouts.value == 0 {
            #expect(cancelledOutcomes.map(outcomeName) == Array(repeating: "CancellationError", count: 3))
            #expect(returnedMeanwhile == 0, "the cancelled readers waited for the factory to return")
        } else {
            // The build ended by itself before they could run (a starved pool): they may read it.
            #expect(cancelledOutcomes.allSatisfy { ["value", "CancellationError"].contains(outcomeName($0)) })
        }
        let instance = try builderOutcome.get()
        #expect(others.allSatisfy { $0.successValue === instance }, "\(others.map(outcomeName))")
        #expect(try container.resolve(Store.self) === instance)
        #expect(runs.value == 1)
    }
}
