import Foundation
import ScopeGraphTesting

/// The scenarios of the Swift concurrency issue: L, M and N. The harness is synchronous, so
/// each runs its async work in a task that the main thread waits for (`TaskBridge`); L and N
/// time their loop of resolves inside that task.
enum AsyncScenarios {
    // MARK: L

    /// `resolveAsync` of the cached singleton, many in a loop inside one task, against our C
    /// (the synchronous cached read) measured in the same rounds.
    static func resolveAsyncCached(_ harness: Harness) throws -> ScenarioResult {
        let container = Container(name: "app")
        container.register((any Settings).self, lifetime: .singleton) { _ in AppSettings() }
        let expected = try container.resolve((any Settings).self)
        let fromTask = try TaskBridge.run { try await container.resolveAsync((any Settings).self) }
        let direct = DirectComposition()
        let sink = harness.sink
        let figures = try harness.measure([
            Contender.inTask("scopegraph") { count in
                for _ in 0..<count { sink.keep(try await container.resolveAsync((any Settings).self)) }
            },
            Contender("direct") { count in
                for _ in 0..<count { sink.keep(direct.settings()) }
            },
            Contender("scopegraph-C") { count in
                for _ in 0..<count { sink.keep(try container.resolve((any Settings).self)) }
            },
        ])
        let sameInstance = fromTask === expected
        return ScenarioResult(
            name: "L-resolve-async-cached", title: "L resolveAsync cached singleton",
            scopegraph: figures[0], direct: figures[1],
            extraFields: [("scopegraph_c_ns", figures[2].median)],
            target: Target(
                text: "≤ 2 × our C", figures[0], over: figures[2], limit: 2,
                alsoRequired: sameInstance),
            notes: [
                "resolves in a loop inside one task; our C (synchronous resolve on the main thread) in the same rounds: \(Report.number(figures[2].median)) ns (scopegraph_c_ns)"
            ],
            failures: sameInstance ? [] : ["resolveAsync gave another instance than the cached singleton"])
    }

    // MARK: M

    static let awaitingTasks = 1_000
    static let factoryDuration = Duration.milliseconds(5)

    /// What one operation of M saw.
    private struct Crowd: Sendable {
        var nanoseconds: Double = 0
        /// Tasks whose resolve failed.
        var failed = 0
        /// Tasks that got another instance than the first task to finish.
        var others = 0
    }

    /// Runs `tasks` child tasks of a task group that each call `get`, and times them from
    /// creating the group until the last one is done; the main thread waits (`TaskBridge`).
    private static func timeCrowd(
        tasks: Int, _ get: @escaping @Sendable () async -> (any SlowStart)?
    ) throws -> Crowd {
        try TaskBridge.run {
            let clock = ContinuousClock()
            let start = clock.now
            var crowd = await withTaskGroup(of: (any SlowStart)?.self) { group in
                for _ in 0..<tasks { group.addTask { await get() } }
                var crowd = Crowd()
                var first: (any SlowStart)?
                for await instance in group {
                    guard let instance else {
                        crowd.failed += 1
                        continue
                    }
                    if let first {
                        if instance !== first { crowd.others += 1 }
                    } else {
                        first = instance
                    }
                }
                return crowd
            }
            crowd.nanoseconds = (clock.now - start).nanoseconds
            return crowd
        }
    }

    /// A thousand child tasks of a task group resolve one singleton whose async factory sleeps
    /// 5 ms; the figure is the wall time from creating the group until all have their instance.
    /// A fresh container each repetition, so the factory runs in every one. Direct: the same
    /// tasks await one plain `Task` that sleeps and builds the instance.
    static func thousandTasks(_ harness: Harness) throws -> ScenarioResult? {
        if harness.options.callgrind { return nil }
        let tasks = awaitingTasks
        let duration = factoryDuration
        var operations = 0
        // Factory runs of the operations where there was not exactly one.
        var wrongBuilds: [Int] = []
        var failedTasks = 0
        var otherInstances = 0
        var directFailures = 0
        let figures = try harness.interleave(
            warmUp: true,
            [
                {
                    let builds = Counter()
                    let container = Container(name: "app")
                    container.register((any SlowStart).self, lifetime: .singleton) { _ in
                        builds.increment()
                        try await Task.sleep(for: duration)
                        return SlowStartService()
                    }
                    let crowd = try timeCrowd(tasks: tasks) { try? await container.resolveAsync((any SlowStart).self) }
                    operations += 1
                    failedTasks += crowd.failed
                    otherInstances += crowd.others
                    if builds.value != 1 { wrongBuilds.append(builds.value) }
                    return crowd.nanoseconds
                },
                {
                    let shared = Task<any SlowStart, Never> {
                        try? await Task.sleep(for: duration)
                        return SlowStartService()
                    }
                    let crowd = try timeCrowd(tasks: tasks) { await shared.value }
                    directFailures += crowd.failed + crowd.others
                    return crowd.nanoseconds
                },
            ])
        var failures: [String] = []
        if !wrongBuilds.isEmpty {
            failures.append(
                "the factory did not run exactly once in \(wrongBuilds.count) of \(operations) operations (runs: "
                    + wrongBuilds.map(String.init).joined(separator: ", ") + ")")
        }
        if failedTasks != 0 {
            failures.append("\(failedTasks) of \(operations * tasks) tasks failed to resolve the singleton")
        }
        if otherInstances != 0 {
            failures.append("\(otherInstances) of \(operations * tasks) tasks got another instance than the first task")
        }
        if directFailures != 0 { failures.append("direct: \(directFailures) tasks got no instance or another one") }
        let factoryNanoseconds = duration.nanoseconds
        return ScenarioResult(
            name: "M-thousand-tasks", title: "M 1,000 tasks × 1 async singleton",
            scopegraph: figures[0], direct: figures[1],
            extraFields: [("factory_ns", factoryNanoseconds)],
            target: Target(
                text: "≤ 2 × one factory", measured: figures[0].median / factoryNanoseconds, limit: 2,
                alsoRequired: failures.isEmpty),
            notes: [
                "wall ns from creating the group until all \(tasks) child tasks have the instance; the factory awaits Task.sleep(5 ms); a fresh container per operation; direct = the tasks await one plain Task that sleeps 5 ms (started before they are created)"
            ],
            failures: failures)
    }

    // MARK: N

    /// `resolveAsync` of A's synchronous transient, many in a loop inside one task, against our
    /// A measured in the same rounds.
    static func resolveAsyncTransient(_ harness: Harness) throws -> ScenarioResult {
        let container = Container(name: "app")
        Scenarios.registerTransient(in: container)
        let (first, second) = try TaskBridge.run {
            (
                try await container.resolveAsync((any Transient).self),
                try await container.resolveAsync((any Transient).self)
            )
        }
        let sink = harness.sink
        let figures = try harness.measure([
            Contender.inTask("scopegraph") { count in
                for _ in 0..<count { sink.keep(try await container.resolveAsync((any Transient).self)) }
            },
            Scenarios.directTransient(into: sink),
            // Our A in a task too, so that both sides of the ratio run on the task pool's
            // threads (see K2: the main thread and a pool thread may sit on CPUs of different
            // speed).
            Contender.inTask("scopegraph-A") { count in
                for _ in 0..<count { sink.keep(try container.resolve((any Transient).self)) }
            },
        ])
        let fresh = first !== second && first is TransientService
        return ScenarioResult(
            name: "N-resolve-async-transient", title: "N resolveAsync of A's transient",
            scopegraph: figures[0], direct: figures[1],
            extraFields: [("scopegraph_a_ns", figures[2].median)],
            target: Target(
                text: "≤ 1.5 × our A", figures[0], over: figures[2], limit: 1.5,
                alsoRequired: fresh),
            notes: [
                "resolves in a loop inside one task; our A (synchronous resolve, also in a task) in the same rounds: \(Report.number(figures[2].median)) ns (scopegraph_a_ns)"
            ],
            failures: fresh ? [] : ["two async resolves of the .unique transient gave one instance"])
    }
}
