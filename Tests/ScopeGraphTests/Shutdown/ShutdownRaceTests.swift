import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// Resolves racing with `shutdown()`: each either finishes before it (and what it built is shut
/// down: its hook ran by the time `shutdown()` returned) or fails with `.containerShutDown`;
/// nothing a racing resolve returned escapes its hook. Bounded by watchdogs; also run under
/// ThreadSanitizer.
@Suite struct ShutdownRaceTests {
    /// One race: a root with a singleton pool and a `perContainer` handler built from it, and
    /// workers that step (each step makes a child registering its own singleton, and resolves
    /// from it); the latest steps of each worker, the instances racing resolves returned, and
    /// the errors they threw.
    ///
    /// Only a worker's latest steps can race with `shutdown()` (a worker stops at its first step
    /// that fails), so each worker keeps its last `keptSteps` and lets the older ones go: their
    /// child is freed, without hooks, and what was resolved from it with it. What the shutdown
    /// closes, and what the race frees at its end, then stay small however late the shutdown
    /// begins: a race that kept every child ended with tens of thousands of them when the
    /// shutdown began late (a parent's children freed in the order they were made take minutes
    /// under AddressSanitizer, quadratic in their number).
    private final class Race: Sendable {
        /// One step: its child, kept so that only `shutdown()` can end it (a dropped container
        /// runs no hooks), and the instances its resolves returned.
        final class Step: Sendable {
            let child: Container
            let returned = Guarded<[ShutdownProbe]>([])
            init(_ child: Container) { self.child = child }
        }

        /// How many of its latest steps a worker keeps.
        static let keptSteps = 32

        let recorder = ShutdownRecorder()
        let created = Counter()
        /// How many instances racing resolves returned, in every step (kept or let go).
        let returned = Counter()
        let unexpected = Guarded<[String]>([])
        /// Each worker's latest steps, oldest first.
        let kept: Guarded<[[Step]]>
        let workersRunning = Counter()
        let root = Container(name: "root")

        /// With `asyncFactories`, the handler's factory resolves the pool with `resolveAsync`: a
        /// synchronous resolve inside a factory may meet the pool being built by another task's
        /// async resolve, and then throws `.requiresAsync` by design (see "Swift concurrency").
        init(workers: Int, asyncFactories: Bool = false) {
            kept = Guarded(Array(repeating: [], count: workers))
            let (recorder, created) = (recorder, created)
            root.register(ShutdownProbe.self, tag: "pool", lifetime: .singleton, counting: created) {
                ShutdownProbe("pool")
            }
            .onShutdown { recorder.record($0) }
            let handler =
                asyncFactories
                ? root.register(ShutdownProbe.self, tag: "handler", lifetime: .perContainer) { r in
                    created.increment()
                    return ShutdownProbe("handler", [try await r.resolveAsync(tag: "pool")])
                }
                : root.register(ShutdownProbe.self, tag: "handler", lifetime: .perContainer) { r in
                    created.increment()
                    return ShutdownProbe("handler", [try r.resolve(tag: "pool")])
                }
            handler.onShutdown { recorder.record($0) }
        }

        /// Begins a step of `worker`: a child with its own singleton, kept with the worker's
        /// latest steps (the oldest one beyond `keptSteps` is let go, after unlocking).
        func beginStep(of worker: Int, _ name: String) -> Step {
            let child = root.makeChild(name: name)
            let (recorder, created) = (recorder, created)
            child.register(ShutdownProbe.self, tag: "own", lifetime: .singleton, counting: created) {
                ShutdownProbe("own")
            }
            .onShutdown { recorder.record($0) }
            let step = Step(child)
            let dropped = kept.withLock { kept -> Step? in
                kept[worker].append(step)
                return kept[worker].count > Self.keptSteps ? kept[worker].removeFirst() : nil
            }
            _ = dropped
            return step
        }

        /// Keeps an instance a racing resolve of `step` returned.
        func keep(_ instance: ShutdownProbe, in step: Step) -> ShutdownProbe {
            step.returned.withLock { $0.append(instance) }
            returned.increment()
            return instance
        }

        /// Notes the failure that ended a worker; any but `.containerShutDown` is unexpected.
        func note(_ error: any Error) {
            if let error = error as? ResolutionError, error.kind.caseName == "containerShutDown" { return }
            unexpected.withLock { $0.append("\(error)") }
        }

        /// One step of `worker` on a thread: a new child, its own singleton (whose lookup stays
        /// in the child), its handler (whose lookup reaches the root), the pool; each instance
        /// kept as soon as it is returned. False once a resolve failed.
        func step(of worker: Int, _ name: String) -> Bool {
            let step = beginStep(of: worker, name)
            do {
                _ = keep(try step.child.resolveProbe("own"), in: step)
                let handler = keep(try step.child.resolveProbe("handler"), in: step)
                let pool = keep(try root.resolveProbe("pool"), in: step)
                if handler.dependencies.first !== pool { unexpected.withLock { $0.append("two pools") } }
                return true
            } catch {
                note(error)
                return false
            }
        }

        /// One step in a task, with `resolveAsync`.
        func stepAsync(of worker: Int, _ name: String) async -> Bool {
            let step = beginStep(of: worker, name)
            do {
                _ = keep(try await step.child.resolveAsync(ShutdownProbe.self, tag: "own"), in: step)
                await Task.yield()
                let handler = keep(try await step.child.resolveAsync(ShutdownProbe.self, tag: "handler"), in: step)
                let pool = keep(try await root.resolveAsync(ShutdownProbe.self, tag: "pool"), in: step)
                if handler.dependencies.first !== pool { unexpected.withLock { $0.append("two pools") } }
                return true
            } catch {
                note(error)
                return false
            }
        }

        /// What went wrong, given the instances whose hooks had run when `shutdown()` returned.
        func problems(hookedWhenShutdownReturned hooked: [ShutdownProbe]) -> [String] {
            var problems = unexpected.current.prefix(3).map { "unexpected failure: \($0)" }
            let hookedIdentities = Set(hooked.map(ObjectIdentifier.init))
            if hookedIdentities.count != hooked.count { problems.append("a hook ran twice for one instance") }
            if recorder.count != hooked.count { problems.append("a hook ran after shutdown() returned") }
            let steps = kept.current.joined()
            let escaped = steps.flatMap(\.returned.current).filter { !hookedIdentities.contains(ObjectIdentifier($0)) }
            if !escaped.isEmpty {
                let labels = Set(escaped.map(\.label)).sorted()
                problems.append("\(escaped.count) returned instance(s) escaped their hook: \(labels)")
            }
            if hooked.count > created.value { problems.append("more hooked instances than factory runs") }
            let running = steps.map(\.child).filter { !$0.isShutDown }.map(\.name)
            if !running.isEmpty { problems.append("children still running after the root's shutdown: \(running)") }
            return problems
        }
    }

    /// Races `threads` threads (each stepping until a resolve fails, at most `maxSteps` times)
    /// with `root.shutdown()`, begun on a thread of its own once every thread has stepped once
    /// (not by a task, which a busy cooperative pool may start seconds later). Returns the
    /// problems and how many instances racing resolves returned.
    private static func threadRace(threads: Int, maxSteps: Int) async throws -> (problems: [String], returned: Int) {
        let race = Race(workers: threads)
        let everyThreadStepped = DispatchSemaphore(value: 0)
        let workers = ThreadGroup(threads) { index in
            for step in 0..<maxSteps {
                let goOn = race.step(of: index, "thread-\(index)-\(step)")
                if step == 0, race.workersRunning.increment() == threads { everyThreadStepped.signal() }
                if !goOn { return }
            }
        }
        let hooked = try await runOnThread(after: everyThreadStepped) {
            try await race.root.shutdown()
            return race.recorder.instances
        }
        await workers.finished()
        return (race.problems(hookedWhenShutdownReturned: hooked), race.returned.value)
    }

    /// Races `tasks` tasks using `resolveAsync` with `root.shutdown()`, as `threadRace`.
    private static func taskRace(tasks: Int, maxSteps: Int) async throws -> (problems: [String], returned: Int) {
        let race = Race(workers: tasks, asyncFactories: true)
        let hooked = try await withThrowingTaskGroup(of: [ShutdownProbe]?.self) { group in
            for index in 0..<tasks {
                group.addTask {
                    for step in 0..<maxSteps {
                        let goOn = await race.stepAsync(of: index, "task-\(index)-\(step)")
                        if step == 0 { race.workersRunning.increment() }
                        if !goOn { break }
                    }
                    return nil
                }
            }
            group.addTask {
                await shutdownEventually { race.workersRunning.value >= tasks }
                try await race.root.shutdown()
                return race.recorder.instances
            }
            var hooked: [ShutdownProbe] = []
            for try await result in group { if let result { hooked = result } }
            return hooked
        }
        return (race.problems(hookedWhenShutdownReturned: hooked), race.returned.value)
    }

    @Test func resolvesOnOtherThreadsFinishBeforeTheShutdownWithTheirHooksRunOrFailWithContainerShutDown()
        async throws
    {
        try await withAsyncWatchdog(seconds: 60) {
            let (problems, returned) = try await Self.threadRace(threads: 4, maxSteps: 20_000)
            #expect(problems.isEmpty, "\(problems)")
            #expect(returned >= 4 * 3, "every thread resolved before the shutdown")
        }
    }

    @Test func resolvesInTasksFinishBeforeTheShutdownWithTheirHooksRunOrFailWithContainerShutDown() async throws {
        try await withAsyncWatchdog(seconds: 60) {
            let (problems, returned) = try await Self.taskRace(tasks: 8, maxSteps: 20_000)
            #expect(problems.isEmpty, "\(problems)")
            #expect(returned >= 8 * 3, "every task resolved before the shutdown")
        }
    }

    @Test func stressTwoHundredRoundsOfThreadsResolvingFromChildrenWhileTheRootShutsDown() async throws {
        try await checkRounds(200, watchdog: 120) { _ in
            try await Self.threadRace(threads: 3, maxSteps: 2_000).problems
        }
    }

    @Test func stressOneHundredRoundsOfTasksResolvingFromChildrenWhileTheRootShutsDown() async throws {
        try await checkRounds(100, watchdog: 120) { _ in
            try await Self.taskRace(tasks: 4, maxSteps: 2_000).problems
        }
    }

    @Test func aSingletonWhoseFactoryIsRunningWhenShutdownBeginsIsEitherShutDownOrNotReturned() async throws {
        try await withAsyncWatchdog {
            let recorder = ShutdownRecorder()
            let gate = ShutdownGate()
            let built = Guarded<[WeakProbe<ShutdownProbe>]>([])
            let root = Container(name: "root")
            root.register(ShutdownProbe.self, lifetime: .singleton) { _ in
                gate.arriveAndWait()
                let probe = ShutdownProbe("slow")
                built.withLock { $0.append(WeakProbe(probe)) }
                return probe
            }
            .onShutdown { recorder.record($0) }
            let outcome = Guarded<Result<ShutdownProbe, any Error>?>(nil)
            let resolver = ThreadGroup(1) { _ in
                let result = Result { try root.resolve(ShutdownProbe.self) }
                outcome.withLock { $0 = result }
            }
            await gate.arrived()

            let shutdown = Task { try await root.shutdown() }
            await shutdownEventually { root.isShutDown }
            gate.open()
            try await shutdown.value
            let hookedWhenShutdownReturned = recorder.instances
            await resolver.finished()

            switch try #require(outcome.current) {
            case .success(let instance):
                #expect(hookedWhenShutdownReturned.contains { $0 === instance }, "returned, but its hook did not run")
            case .failure(let error):
                #expect((error as? ResolutionError)?.kind.caseName == "containerShutDown", "\(error)")
                #expect(recorder.count == 0)
                #expect(built.current.allSatisfy { $0.isFreed }, "the instance no resolve returned was kept")
            }
        }
    }

    @Test func anAsyncPerContainerInstanceWhoseFactoryIsSuspendedWhenShutdownBeginsIsEitherShutDownOrNotReturned()
        async throws
    {
        try await withShutdownRecorder(container: "root") { recorder, root in
            let gate = ShutdownGate()
            root.register(ShutdownProbe.self, lifetime: .perContainer) { _ in
                await gate.arriveAndSuspend()
                return ShutdownProbe("slow")
            }
            .onShutdown { recorder.record($0) }
            let child = root.makeChild(name: "child")
            let resolve = Task { try await child.resolveAsync(ShutdownProbe.self) }
            await gate.arrived()

            let shutdown = Task { try await root.shutdown() }
            await shutdownEventually { root.isShutDown && child.isShutDown }
            gate.open()
            try await shutdown.value
            let hookedWhenShutdownReturned = recorder.instances
            let outcome = await resolve.result

            switch outcome {
            case .success(let instance):
                #expect(hookedWhenShutdownReturned.contains { $0 === instance }, "returned, but its hook did not run")
            case .failure(let error):
                #expect((error as? ResolutionError)?.kind.caseName == "containerShutDown", "\(error)")
                #expect(recorder.count == 0)
            }
        }
    }

    /// Shuts `root` down while a thread calls `step(n)` for n = 1, 2, … until it returns true
    /// (it saw the shutdown), or for 20 s (a safety bound, not a timing); returns once both ended.
    private static func shutDown(_ root: Container, whileAThreadSteps step: @escaping @Sendable (Int) -> Bool)
        async throws
    {
        let started = Counter()
        let thread = ThreadGroup(1) { _ in
            started.increment()
            let deadline = Date(timeIntervalSinceNow: 20)
            var n = 0
            while n % 1024 != 0 || Date() < deadline {
                n += 1
                if step(n) { return }
            }
        }
        await shutdownEventually { started.value == 1 }
        try await root.shutdown()
        await thread.finished()
    }

    @Test func anExistingDescendantIsNeverSeenRunningOnceItsAncestorIsSeenShutDown() async throws {
        try await checkRounds(200, watchdog: 120) { _ in
            let root = Container(name: "root")
            let middle = root.makeChild(name: "middle")
            let leaves = (0..<4).map { middle.makeChild(name: "leaf-\($0)") }
            let seen = Guarded<[String]>([])
            try await Self.shutDown(root) { n in
                // Read the ancestor first, then the descendant.
                let leaf = leaves[n % leaves.count]
                guard root.isShutDown else { return false }
                if !leaf.isShutDown { seen.withLock { $0.append("\(leaf.name) running") } }
                return true
            }
            return seen.current
        }
    }

    @Test func aChildMadeWhileItsAncestorShutsDownIsShutDownToo() async throws {
        try await checkRounds(200, watchdog: 120) { _ in
            let root = Container(name: "root")
            let middle = root.makeChild(name: "middle")
            let made = Guarded<[Container]>([])
            let seenRunning = Guarded<[String]>([])
            try await Self.shutDown(root) { n in
                let child = middle.makeChild(name: "made-\(n)")
                // Only the children made last are kept: those that can race with the shutdown
                // (the others are freed, which keeps the rounds fast).
                made.withLock {
                    $0.append(child)
                    if $0.count > 16 { $0.removeFirst() }
                }
                guard root.isShutDown else { return false }
                if !child.isShutDown { seenRunning.withLock { $0.append(child.name) } }
                return true
            }
            let runningAfterwards = made.current.filter { !$0.isShutDown }.map(\.name)
            if seenRunning.current.isEmpty && runningAfterwards.isEmpty { return [] }
            return [
                "seen running once the root was seen shut down: \(seenRunning.current); "
                    + "still running after the root's shutdown returned: \(runningAfterwards)"
            ]
        }
    }

    /// The two ends of a property cycle in two containers that collaborate both ways.
    final class GroupLeft: @unchecked Sendable {
        // @unchecked: set by a block before the resolve that built it returns.
        var right: GroupRight?
    }

    final class GroupRight: @unchecked Sendable {
        // @unchecked: set by a block before the resolve that built it returns.
        var left: GroupLeft?
    }

    /// A group of two resolves on two threads (the two ends of a property cycle, built at
    /// once) checked its containers, and then the shutdown of one of them began before the
    /// group published: the debug pause point between the two (`beforeGroupPublication`)
    /// orders that race. The instance with a hook in the shut-down container is refused, so
    /// both resolves fail with `.containerShutDown` and its hook never runs; the instance
    /// without hooks the group built in the other container is published, complete, and stays.
    @Test func aCrossThreadGroupWhoseContainerBeginsShuttingDownBeforeItPublishesFailsAndKeepsTheOthers()
        async throws
    {
        try await withAsyncWatchdog {
            let app = Container(name: "app")
            let scope = Container(name: "scope")
            app.collaborate(with: scope)
            scope.collaborate(with: app)
            let meeting = Rendezvous()
            let leftRuns = Counter()
            let hooks = Counter()
            app.register(GroupLeft.self, lifetime: .singleton) { _ in
                leftRuns.increment()
                _ = meeting.arriveFirst()
                return GroupLeft()
            }.onResolved { r, left in left.right = try r.resolve() }
            scope.register(GroupRight.self, lifetime: .singleton) { _ in
                _ = meeting.arriveSecond()
                return GroupRight()
            }
            .onResolved { r, right in right.left = try r.resolve() }
            .onShutdown { _ in hooks.increment() }
            // The paused thread holds the coordinator's lock, which other suites' resolves on the
            // cooperative pool may wait for: the shutdown is begun from a thread of its own, not
            // from this task, so that the pause never waits for the pool.
            let gate = ShutdownGate()
            let paused = Guarded(false)
            BuildCoordinator.beforeGroupPublication.withLock {
                $0 = { types in
                    guard types.contains(ObjectIdentifier(GroupRight.self)), !paused.current else { return }
                    paused.withLock { $0 = true }
                    gate.arriveAndWait(timeout: 10)
                }
            }
            defer { BuildCoordinator.beforeGroupPublication.withLock { $0 = nil } }
            let opener = ThreadGroup(1) { _ in
                let deadline = Date.now.addingTimeInterval(10)
                while !paused.current, Date.now < deadline { usleep(500) }
                // Runs on this thread until the shutdown's first suspension: its beginning at least.
                Task.immediate { _ = try? await scope.shutdown() }
                while !scope.isShutDown, Date.now < deadline { usleep(500) }
                gate.open()
            }

            let errors = Guarded<[Int: any Error]>([:])
            let resolves = ThreadGroup(2) { index in
                do {
                    if index == 0 {
                        _ = try app.resolve(GroupLeft.self)
                    } else {
                        _ = try scope.resolve(GroupRight.self)
                    }
                } catch { errors.withLock { $0[index] = error } }
            }
            await resolves.finished()
            await opener.finished()
            try await scope.shutdown()

            #expect(paused.current, "the group never reached its publication")
            #expect(errors.current.count == 2, "\(errors.current)")
            for (index, error) in errors.current {
                #expect((error as? ResolutionError)?.kind.caseName == "containerShutDown", "thread \(index): \(error)")
            }
            #expect(hooks.value == 0, "the refused instance's hook ran")
            let left = try app.resolve(GroupLeft.self)
            defer { left.right?.left = nil }  // the pair's cycle
            #expect(leftRuns.value == 1, "the instance built in the other container was not kept")
            #expect(left.right != nil, "its block ran before the group published")
        }
    }
}
