import Dispatch
import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// The build coordinator's async coordination under pressure: cancellation at each point where a
/// resolve suspends, cycles across tasks, shutdowns and scopes racing with builds, failing
/// blocks, threads and tasks on the same slots, and main-actor factories. Each test checks that
/// nothing hangs, that a factory runs once per publication, that every waiter gets the
/// published instance or an error meant for it, that nothing leaks, and that the next resolve
/// after a failure builds again.
@Suite struct AsyncCoordinationTests: ServiceFixtures {
    /// An async `graph` service whose factory resolves `Slow`: its resolve waits for `Slow`'s
    /// build as a resolve of its own (`acquireAsync`), not as a reader.
    final class Holder: Sendable {
        let slow: Slow
        init(slow: Slow) { self.slow = slow }
    }

    typealias HeldBuild = GatedBuild<Slow>

    /// Registers `Slow` (async singleton held by `held`) and `Holder` (async graph, takes Slow).
    @discardableResult
    static func registerHeld(_ held: HeldBuild, in container: Container) -> Registration<Slow> {
        container.register(Holder.self, lifetime: .graph) { r in
            Holder(slow: try await r.resolveAsync(Slow.self))
        }
        return container.register(Slow.self, lifetime: .singleton) { _ in
            let run = held.runs.increment()
            if run == 1 {
                held.started.open()
                await held.gate.wait()
            }
            let slow = Slow(run: run)
            held.built.withLock { $0.append(WeakProbe(slow)) }
            return slow
        }
    }

    /// `withAsyncWatchdog`, plus a guard on a plain thread against a wedged cooperative pool
    /// (see `AsyncReaderTests.abortIfWedged`).
    static func bounded<R: Sendable>(
        seconds: Double, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ work: @escaping @Sendable () async throws -> R
    ) async throws -> R? {
        try await AsyncReaderTests.abortIfWedged(seconds: seconds, what, sourceLocation: sourceLocation, work)
    }

    /// Runs `body` with a new held build, bounded as `bounded(seconds: 10, what)`; the build's
    /// gate is opened when the test ends, whatever happened.
    static func withHeldBuild(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable (HeldBuild) async throws -> Void
    ) async throws {
        let held = HeldBuild()
        defer { held.gate.open() }
        _ = try await bounded(seconds: 10, what, sourceLocation: sourceLocation) { try await body(held) }
    }

    /// `withHeldBuild(what)`, with a container "root" in which `registerHeld` registered it.
    static func withHeldRoot(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable (HeldBuild, Container) async throws -> Void
    ) async throws {
        try await withHeldBuild(what, sourceLocation: sourceLocation) { held in
            let container = Container(name: "root")
            registerHeld(held, in: container)
            try await body(held, container)
        }
    }

    /// Runs `body` with a new container "root", bounded as `bounded(seconds: 10, what)`.
    static func boundedWithRoot(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable (Container) async throws -> Void
    ) async throws {
        _ = try await bounded(seconds: 10, what, sourceLocation: sourceLocation) {
            try await body(Container(name: "root"))
        }
    }

    // MARK: Cancellation at each suspension point

    /// A requester cancelled while the build it handed off runs stops with
    /// `CancellationError`; readers and resolves that wait for that build (as a dependency of
    /// their own resolve) all get its one instance, the factory runs once, and the instance is
    /// freed with the container.
    @Test func aRequesterCancelledWhileItsHandedOffBuildRunsLeavesOneInstanceToEveryOtherWaiter() async throws {
        try await Self.withHeldBuild("cancel during handed-off build") { held in
            try await Self.cancelDuringHandedOffBuild(held)
            #expect(held.built.withLock { $0.allSatisfy(\.isFreed) })
        }
    }

    /// The body of the test above, whose locals (tasks keep their results) end with it.
    static func cancelDuringHandedOffBuild(_ held: HeldBuild) async throws {
        do {
            let container: Container? = Container(name: "root")
            Self.registerHeld(held, in: container!)
            let requester = Task { [container] in await Result { try await container!.resolveAsync(Slow.self) } }
            await held.started.wait()
            let readers = await startTasks(6) { [container] _ in try await container!.resolveAsync(Slow.self) }
            let holders = await startTasks(6) { [container] _ in try await container!.resolveAsync(Holder.self).slow }
            requester.cancel()
            let cancelled = await requester.value
            #expect(outcomeName(cancelled) == "CancellationError")
            held.gate.open()
            let others = await awaitOutcomes(of: readers) + awaitOutcomes(of: holders)
            let published = try await container!.resolveAsync(Slow.self)
            #expect(others.allSatisfy { $0.successValue === published }, "\(others.map(outcomeName))")
            #expect(held.runs.value == 1)
        }
    }

    /// A requester whose own async factory got the handed-off build's instance (built, not yet
    /// published: it waits for the requester's group) and is then cancelled in that factory
    /// stops with `CancellationError`, and the build still publishes that very instance for
    /// the readers: the factory runs once.
    @Test func aRequesterCancelledAfterItsHandedOffBuildReturnedStillPublishesThatInstance() async throws {
        try await Self.withHeldRoot("cancel after build returned") { held, container in
            let got = Guarded<Slow?>(nil)
            let gotIt = AsyncLatch()
            container.register(Probe.self, lifetime: .unique) { r in
                got.withLock { $0 = nil }
                let slow = try await r.resolveAsync(Slow.self)
                got.withLock { $0 = slow }
                gotIt.open()
                try await Task.sleep(for: .seconds(30))
                return Probe("screen", run: slow.run)
            }
            let requester = Task { await Result { try await container.resolveAsync(Probe.self) } }
            await held.started.wait()
            let readers = await startTasks(4) { _ in try await container.resolveAsync(Slow.self) }
            let holders = await startTasks(4) { _ in try await container.resolveAsync(Holder.self).slow }
            held.gate.open()
            await gotIt.wait()
            await letTasksSettle()
            requester.cancel()
            #expect(outcomeName(await requester.value) == "CancellationError")
            let others = await awaitOutcomes(of: readers) + awaitOutcomes(of: holders)
            let first = got.withLock { $0 }
            #expect(others.allSatisfy { $0.successValue === first }, "\(others.map(outcomeName))")
            let published = try await container.resolveAsync(Slow.self)
            #expect(published === first)
            #expect(held.runs.value == 1)
        }
    }

    /// A requester that cancels its own task right before its factory returns (so the
    /// cancellation reaches it while it waits in `finishAsync` for the handed-off build of
    /// its group) still gets its instance: that wait is not cancellable.
    @Test func aRequesterCancelledWhileItWaitsForItsGroupToFinishStillGetsItsInstance() async throws {
        try await Self.withHeldRoot("cancel in finishAsync") { held, container in
            container.register(Probe.self, lifetime: .unique) { r in
                let slow = try await r.resolveAsync(Slow.self)
                withUnsafeCurrentTask { $0?.cancel() }
                return Probe("screen", run: slow.run)
            }
            let requesters = await startTasks(4) { _ in try await container.resolveAsync(Probe.self) }
            held.gate.open()
            let outcomes = await awaitOutcomes(of: requesters)
            #expect(outcomes.allSatisfy { $0.successValue?.run == 1 }, "\(outcomes.map(outcomeName))")
            #expect(held.runs.value == 1)
        }
    }

    /// A requester cancelled while an `onResolved` block of its group runs (the block holds
    /// its thread until a plain thread has cancelled the requester) gets the instance or
    /// `CancellationError`; the other waiters get the one instance, the block and the factory
    /// run once.
    @Test func aRequesterCancelledWhileABlockOfItsGroupRunsLeavesTheInstanceToTheOthers() async throws {
        try await Self.boundedWithRoot("cancel during block") { container in
            let runs = Counter()
            let blocks = Counter()
            let gate = AsyncLatch()
            let blockStarted = DispatchSemaphore(value: 0)
            let cancelled = DispatchSemaphore(value: 0)
            container.register(Slow.self, lifetime: .singleton) { _ in
                await gate.wait()
                return Slow(run: runs.increment())
            }.onResolved { _, _ in
                guard blocks.increment() == 1 else { return }
                blockStarted.signal()
                _ = cancelled.wait(timeout: .now() + 3)
            }
            let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
            try? await Task.sleep(for: .milliseconds(20))
            let readers = await startTasks(4) { _ in try await container.resolveAsync(Slow.self) }
            let holders = await startTasks(4) { _ in
                try await container.resolveAsync(Slow.self)
            }
            _ = StartedThread {
                _ = blockStarted.wait(timeout: .now() + 5)
                requester.cancel()
                cancelled.signal()
            }
            gate.open()
            let mine = await requester.value
            #expect(["value", "CancellationError"].contains(outcomeName(mine)))
            let others = await awaitOutcomes(of: readers) + awaitOutcomes(of: holders)
            let published = try await container.resolveAsync(Slow.self)
            if let value = mine.successValue { #expect(value === published) }
            #expect(others.allSatisfy { $0.successValue === published }, "\(others.map(outcomeName))")
            #expect(runs.value == 1)
            #expect(blocks.value == 1)
        }
    }

    // MARK: Cycles across tasks, with cancellation

    /// Two tasks at both ends of an async singleton constructor cycle, one of them cancelled
    /// once both factories run: neither hangs, the live end gets `.circularDependency` (never
    /// the other's cancellation), and the next resolve reports the cycle again.
    @Test func aConstructorCycleAcrossTwoTasksWithOneEndCancelledReportsTheCycleToTheOther() async throws {
        for round in 0..<6 {
            let outcome = try await Self.bounded(seconds: 10, "ctor cycle round \(round)") {
                () -> (String, String, String, String) in
                let container = Container(name: "root")
                let meeting = AsyncRendezvous()
                container.register(Left.self, lifetime: .singleton) { r in
                    _ = await meeting.arriveFirst()
                    return Left(right: try await r.resolveAsync(Right.self))
                }
                container.register(Right.self, lifetime: .singleton) { r in
                    _ = await meeting.arriveSecond()
                    return Right(left: try await r.resolveAsync(Left.self))
                }
                let left = Task { await Result { try await container.resolveAsync(Left.self) } }
                let right = Task { await Result { try await container.resolveAsync(Right.self) } }
                if round % 2 == 0 { await letTasksSettle() }
                if round < 3 { left.cancel() } else { right.cancel() }
                let l = await left.value
                let r = await right.value
                let again = await Result { try await container.resolveAsync(Left.self) }
                return (round < 3 ? outcomeName(r) : outcomeName(l), outcomeName(l), outcomeName(r), outcomeName(again))
            }
            guard let (live, l, r, again) = outcome else { return }
            #expect(live == "circularDependency", "round \(round): left \(l), right \(r)")
            #expect(again == "circularDependency")
        }
    }

    /// A property cycle through async singletons (Left's factory takes Right by constructor
    /// through `resolveAsync`; Right gets Left in `onResolved`) started from two tasks, one
    /// cancelled: the live end gets the consistent pair or `.requiresAsync`, never a
    /// cancellation; afterwards one consistent pair is cached.
    @Test func aPropertyCycleAcrossTwoTasksWithOneEndCancelledLeavesAConsistentPair() async throws {
        for round in 0..<6 {
            let outcome = try await Self.bounded(seconds: 10, "property cycle round \(round)") {
                () -> (String, String, String, Bool, String) in
                let container = Container(name: "root")
                let meeting = AsyncRendezvous()
                container.register(Left.self, lifetime: .singleton) { r in
                    _ = await meeting.arriveFirst(atMost: 0.5)
                    let left = Left()
                    left.right = try await r.resolveAsync()
                    return left
                }
                container.register(Right.self, lifetime: .singleton) { _ in
                    _ = await meeting.arriveSecond(atMost: 0.5)
                    return Right()
                }.onResolved { r, right in right.left = try r.resolve(Left.self) }
                let left = Task { await Result { try await container.resolveAsync(Left.self) } }
                let right = Task { await Result { try await container.resolveAsync(Right.self) } }
                if round % 2 == 0 { await letTasksSettle() }
                let cancelLeft = round < 3
                if cancelLeft { left.cancel() } else { right.cancel() }
                let l = await left.value
                let r = await right.value
                let live = cancelLeft ? outcomeName(r) : outcomeName(l)
                var consistent = true
                var cached = "none"
                let a = await Result { try await container.resolveAsync(Left.self) }
                let b = await Result { try await container.resolveAsync(Right.self) }
                cached = "\(outcomeName(a))/\(outcomeName(b))"
                if let a = a.successValue, let b = b.successValue { consistent = a.right === b && b.left === a }
                for value in [a.successValue, l.successValue] { value?.right?.left = nil }
                b.successValue?.left = nil
                r.successValue?.left = nil
                return (live, outcomeName(l), outcomeName(r), consistent, cached)
            }
            guard let (live, l, r, consistent, cached) = outcome else { return }
            #expect(live == "value" || live == "requiresAsync", "round \(round): left \(l), right \(r)")
            #expect(consistent, "round \(round): cached \(cached)")
        }
    }

    // MARK: Shutdown and scopes racing with builds

    /// `shutdown()` while a handed-off build runs and readers and resolves wait for it: the
    /// shutdown finishes, every waiter gets the instance (whose hook then ran once) or
    /// `.containerShutDown` (never another waiter's cancellation), the factory never runs
    /// after the shutdown began, and the instance is freed.
    @Test func aShutdownWhileTasksWaitForABuildEndsEveryWaitAndStartsNoNewBuild() async throws {
        try await Self.withHeldBuild("shutdown during build") { held in
            do {
                let hooks = Counter()
                let container = Container(name: "root")
                Self.registerHeld(held, in: container).onShutdown { _ in hooks.increment() }
                let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
                await held.started.wait()
                let readers = await startTasks(4) { _ in try await container.resolveAsync(Slow.self) }
                let holders = await startTasks(4) { _ in try await container.resolveAsync(Holder.self).slow }
                let shutdown = Task { try await container.shutdown() }
                await letTasksSettle()
                held.gate.open()
                try await shutdown.value
                let all =
                    [await requester.value] + (await awaitOutcomes(of: readers)) + (await awaitOutcomes(of: holders))
                let names = all.map(outcomeName)
                #expect(names.allSatisfy { $0 == "value" || $0 == "containerShutDown" }, "\(names)")
                if all.contains(where: { $0.successValue != nil }) { #expect(hooks.value == 1) }
                #expect(held.runs.value == 1, "factory runs: \(held.runs.value), outcomes \(names)")
                let after = await Result { try await container.resolveAsync(Slow.self) }
                #expect(outcomeName(after) == "containerShutDown")
            }
            #expect(held.built.withLock { $0.allSatisfy(\.isFreed) })
        }
    }

    /// `withScope` whose body leaves a build of the scope's singleton running (and tasks
    /// waiting for it) when it returns: the scope's shutdown does not hang, the waiters end
    /// with the instance (hook run) or `.containerShutDown`, and nothing the scope built is
    /// kept alive.
    @Test func aScopeEndingWhileItsSingletonIsBeingBuiltEndsEveryWait() async throws {
        try await Self.withHeldBuild("withScope during build") { held in
            let root = Container(name: "root")
            let hooks = Counter()
            let started = Guarded<[Task<Outcome<Slow>, Never>]>([])
            try await root.withScope(name: "request") { scope in
                Self.registerHeld(held, in: scope).onShutdown { _ in hooks.increment() }
                let tasks = (0..<4).map { index in
                    Task {
                        await Result {
                            index.isMultiple(of: 2)
                                ? try await scope.resolveAsync(Slow.self)
                                : try await scope.resolveAsync(Holder.self).slow
                        }
                    }
                }
                started.withLock { $0 = tasks }
                await held.started.wait()
                await letTasksSettle()
            }
            held.gate.open()
            let outcomes = await awaitOutcomes(of: started.withLock { $0 })
            let names = outcomes.map(outcomeName)
            #expect(names.allSatisfy { $0 == "value" || $0 == "containerShutDown" }, "\(names)")
            #expect(held.runs.value == 1, "\(names)")
            if outcomes.contains(where: { $0.successValue != nil }) { #expect(hooks.value == 1) }
        }
    }

    // MARK: Failing blocks

    /// An `onResolved` block that throws on the first instance an async build made: the
    /// requester, readers and resolves that waited for that build all get an error (never a
    /// cancellation or an instance), the failed instance is freed, and the next resolve builds
    /// again and publishes.
    @Test func aBlockThatThrowsForAnAsyncBuiltInstanceFailsEveryWaiterAndTheNextResolveBuildsAgain() async throws {
        try await Self.withHeldBuild("throwing block") { held in
            let container = Container(name: "root")
            let blocks = Counter()
            Self.registerHeld(held, in: container).onResolved { _, _ in
                if blocks.increment() == 1 { throw Boom("block") }
            }
            let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
            await held.started.wait()
            let readers = await startTasks(4) { _ in try await container.resolveAsync(Slow.self) }
            let holders = await startTasks(4) { _ in try await container.resolveAsync(Holder.self).slow }
            held.gate.open()
            let all = [await requester.value] + (await awaitOutcomes(of: readers)) + (await awaitOutcomes(of: holders))
            let names = all.map(outcomeName)
            // A waiter that came after the failure may build again (its own build, run 2).
            let firstRun = all.filter { $0.successValue?.run == 1 }
            #expect(firstRun.isEmpty, "\(names)")
            #expect(outcomeName(all[0]) != "value" && outcomeName(all[0]) != "CancellationError", "\(names)")
            #expect(!names.contains("CancellationError"), "\(names)")
            let next = try await container.resolveAsync(Slow.self)
            #expect(next.run >= 2)
            #expect(all.compactMap(\.successValue).allSatisfy { $0 === next }, "\(names)")
            #expect(held.built.withLock { $0.first?.isFreed == true })
        }
    }

    // MARK: Threads and tasks on the same slots

    /// Plain threads resolving an async singleton while a task builds it get `.requiresAsync`
    /// at once (never wait, never an instance from another build), tasks get the one
    /// instance; after publication the threads read that same instance.
    @Test func threadsThatFindAnAsyncBuildUnderWayGetRequiresAsyncAndTheInstanceAfterwards() async throws {
        try await Self.withHeldRoot("threads during async build") { held, container in
            let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
            await held.started.wait()
            let readers = await startTasks(4) { _ in try await container.resolveAsync(Holder.self).slow }
            let during = await runOnNewThread { () -> [String] in
                (0..<4).map { _ in outcomeName(Result { try container.resolve(Slow.self) }) }
                    + (0..<2).map { _ in outcomeName(Result { try container.resolve(Holder.self) }) }
            }
            #expect(during.allSatisfy { $0 == "requiresAsync" }, "\(during)")
            held.gate.open()
            let published = try await requester.value.get()
            let others = await awaitOutcomes(of: readers)
            #expect(others.allSatisfy { $0.successValue === published }, "\(others.map(outcomeName))")
            let after = await runOnNewThread { Result { try container.resolve(Slow.self) } }
            #expect(after.successValue === published)
            #expect(held.runs.value == 1)
        }
    }

    /// A synchronous singleton being built on a plain thread (its factory blocks that thread
    /// for a while) and resolved meanwhile by tasks, some cancelled: the tasks suspend, get
    /// that one instance or `CancellationError` (only the cancelled ones), the factory runs
    /// once.
    @Test func tasksWaitingForASynchronousBuildOnAThreadGetItsInstance() async throws {
        try await Self.boundedWithRoot("tasks wait for a thread's build") { container in
            let runs = Counter()
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            container.register(Slow.self, lifetime: .singleton) { _ in
                let run = runs.increment()
                started.signal()
                _ = release.wait(timeout: .now() + 3)
                return Slow(run: run)
            }
            container.register(Holder.self, lifetime: .graph) { r in
                Holder(slow: try await r.resolveAsync(Slow.self))
            }
            let builder = Task { await runOnNewThread { Result { try container.resolve(Slow.self) } } }
            _ = await runOnNewThread { started.wait(timeout: .now() + 5) }
            let waiters = await startTasks(8) { _ in try await container.resolveAsync(Slow.self) }
            let holders = await startTasks(4) { _ in try await container.resolveAsync(Holder.self).slow }
            for (index, task) in waiters.enumerated() where index.isMultiple(of: 2) { task.cancel() }
            await letTasksSettle()
            release.signal()
            let published = try await builder.value.get()
            let outcomes = await awaitOutcomes(of: waiters)
            for (index, outcome) in outcomes.enumerated() {
                if index.isMultiple(of: 2) {
                    #expect(outcome.successValue === published || outcomeName(outcome) == "CancellationError")
                } else {
                    #expect(outcome.successValue === published, "\(outcomeName(outcome))")
                }
            }
            let held = await awaitOutcomes(of: holders)
            #expect(held.allSatisfy { $0.successValue === published }, "\(held.map(outcomeName))")
            #expect(runs.value == 1)
        }
    }

    // MARK: Main-actor factories

    /// An async main-actor factory (`{ @MainActor r in … await … }`) and a synchronous
    /// main-actor factory, each a singleton resolved by many tasks of which every third is
    /// cancelled: every live task gets the one instance, cancelled ones that one or
    /// `CancellationError`, each factory runs once.
    @Test func mainActorSingletonsResolvedFromManyTasksWithCancellationBuildOnce() async throws {
        try await Self.boundedWithRoot("main-actor singletons") { container in
            let asyncRuns = Counter()
            let syncRuns = Counter()
            let gate = AsyncLatch()
            container.register(Slow.self, lifetime: .singleton) { @MainActor _ in
                await gate.wait()
                return Slow(run: asyncRuns.increment())
            }
            container.register(Probe.self, lifetime: .singleton) { @MainActor _ in
                Probe("screen", run: syncRuns.increment())
            }
            let slows = await startTasks(24) { _ in try await container.resolveAsync(Slow.self) }
            let screens = await startTasks(24) { _ in try await container.resolveAsync(Probe.self) }
            for (index, task) in slows.enumerated() where index % 3 == 0 { task.cancel() }
            for (index, task) in screens.enumerated() where index % 3 == 0 { task.cancel() }
            gate.open()
            let slowOutcomes = await awaitOutcomes(of: slows)
            let screenOutcomes = await awaitOutcomes(of: screens)
            let slow = try await container.resolveAsync(Slow.self)
            let screen = try await container.resolveAsync(Probe.self)
            for (index, outcome) in slowOutcomes.enumerated() {
                let ok =
                    outcome.successValue === slow || (index % 3 == 0 && outcomeName(outcome) == "CancellationError")
                #expect(ok, "slow \(index): \(outcomeName(outcome))")
            }
            for (index, outcome) in screenOutcomes.enumerated() {
                let ok =
                    outcome.successValue === screen || (index % 3 == 0 && outcomeName(outcome) == "CancellationError")
                #expect(ok, "screen \(index): \(outcomeName(outcome))")
            }
            #expect(asyncRuns.value == 1)
            #expect(syncRuns.value == 1)
        }
    }

    // MARK: Random mixtures

    /// Seeded rounds mixing requesters, readers, resolves through a dependent, cancellations,
    /// failing first builds and threads on one async singleton: every live waiter gets the
    /// published instance or the failed build's error (never `CancellationError`), the factory
    /// runs once per publication plus once per failed build, nothing hangs.
    @Test func seededMixturesOfWaitersCancellationsAndFailuresKeepTheInvariants() async throws {
        var rng = Reliability.SplitMix64(seed: 0x5C0_DE6A)
        for round in 0..<8 {
            let failFirst = rng.chance(40)
            let cancelMask = (0..<10).map { _ in rng.chance(30) }
            let outcome = try await Self.bounded(seconds: 10, "mixture round \(round)") {
                let container = Container(name: "root")
                let runs = Counter()
                let gate = AsyncLatch()
                container.register(Holder.self, lifetime: .graph) { r in
                    Holder(slow: try await r.resolveAsync(Slow.self))
                }
                container.register(Slow.self, lifetime: .singleton) { _ in
                    let run = runs.increment()
                    if run == 1 {
                        await gate.wait()
                        if failFirst { throw Boom("first") }
                    }
                    return Slow(run: run)
                }
                let tasks = await startTasks(10) { _ -> Slow in
                    Bool.random()
                        ? try await container.resolveAsync(Slow.self)
                        : try await container.resolveAsync(Holder.self).slow
                }
                for (index, task) in tasks.enumerated() where cancelMask[index] { task.cancel() }
                gate.open()
                let outcomes = await awaitOutcomes(of: tasks)
                let published = try await container.resolveAsync(Slow.self)
                var problems: [String] = []
                for (index, outcome) in outcomes.enumerated() {
                    let name = outcomeName(outcome)
                    if let value = outcome.successValue, value !== published { problems.append("\(index): stale") }
                    if name == "CancellationError", !cancelMask[index] { problems.append("\(index): cancellation") }
                    if name != "value", name != "CancellationError", !failFirst { problems.append("\(index): \(name)") }
                }
                if runs.value != (failFirst ? 2 : 1) { problems.append("runs \(runs.value)") }
                return problems
            }
            guard let problems = outcome else { return }
            #expect(problems.isEmpty, "round \(round) failFirst \(failFirst): \(problems)")
        }
    }
}
