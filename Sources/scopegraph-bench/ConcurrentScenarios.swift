import Foundation
import ScopeGraphTesting

/// The scenarios that run on several threads: G and J.
enum ConcurrentScenarios {
    // MARK: G

    /// Two threads each resolve the cached singleton `concurrentOperations` times; the figure
    /// is wall time divided by the operations of one thread. Every result is compared with the
    /// one instance, and mismatches are counted.
    static func twoThreadsCached(_ harness: Harness) throws -> ScenarioResult? {
        if harness.options.callgrind { return nil }
        let operations = harness.options.concurrentOperations
        let container = Container(name: "app")
        container.register((any Settings).self, lifetime: .singleton) { _ in AppSettings() }
        let expected = try container.resolve((any Settings).self)
        let naive = NaiveLocator()
        naive.registerSingleton((any Settings).self) { AppSettings() }
        let naiveExpected = naive.resolve((any Settings).self)
        let direct = DirectComposition()
        let directExpected = direct.settings()

        /// Runs `resolve` on two threads and counts results that are not `expected`.
        func sampler(_ expected: any Settings, _ resolve: @escaping @Sendable () -> (any Settings)?)
            -> (mismatches: () -> Int, sample: () -> Double)
        {
            var mismatches = 0
            return (
                { mismatches },
                {
                    let run = ThreadGang.run(threads: 2) { _ in
                        var wrong = 0
                        for _ in 0..<operations where resolve() !== expected { wrong += 1 }
                        return wrong
                    }
                    mismatches += run.results.reduce(0, +)
                    return run.nanoseconds / Double(operations)
                }
            )
        }
        let samplers = [
            sampler(expected) { try? container.resolve((any Settings).self) },
            sampler(directExpected) { direct.settings() },
            sampler(naiveExpected) { naive.resolve((any Settings).self) },
        ]
        let figures = try harness.interleave(warmUp: true, samplers.map(\.sample))
        let mismatches = samplers.map { $0.mismatches() }
        return ScenarioResult(
            name: "G-two-threads-cached", title: "G 2 threads × cached singleton",
            scopegraph: figures[0], direct: figures[1], naive: figures[2],
            extraFields: [("mismatches", Double(mismatches[0]))],
            target: Target(
                text: "≤ 0.5 × naive, 0 mismatches", figures[0], over: figures[2], limit: 0.5,
                alsoRequired: mismatches[0] == 0),
            notes: [
                "\(operations) resolves per thread, wall ns / resolves of one thread; mismatches: scopegraph \(mismatches[0]), direct \(mismatches[1]), naive \(mismatches[2])"
            ],
            failures: mismatches.contains { $0 != 0 } ? ["a thread got another instance than the singleton"] : [])
    }

    // MARK: J

    static let convoyThreads = 8
    static let factoryMicroseconds: UInt32 = 5_000

    /// Eight threads each first-resolve a different singleton whose factory sleeps 5 ms; the
    /// figure is the wall time until all eight have their instance. A fresh container each
    /// repetition, so every resolve is a first resolve.
    static func startupConvoy(_ harness: Harness) throws -> ScenarioResult? {
        if harness.options.callgrind { return nil }
        let tags = (0..<convoyThreads).map { ServiceTag("slow-\($0)") }
        var failures: [String] = []
        let figures = try harness.interleave(
            warmUp: true,
            [
                {
                    let builds = Counter()
                    let container = Container(name: "app")
                    for tag in tags {
                        container.register((any SlowStart).self, tag: tag, lifetime: .singleton) { _ in
                            builds.increment()
                            usleep(factoryMicroseconds)
                            return SlowStartService()
                        }
                    }
                    let run = ThreadGang.run(threads: convoyThreads) { index in
                        guard let first = try? container.resolve((any SlowStart).self, tag: tags[index]),
                            let again = try? container.resolve((any SlowStart).self, tag: tags[index])
                        else { return 0 }
                        return first === again ? 1 : 0
                    }
                    if run.results.contains(0) { failures.append("a thread failed to get its singleton, or got two") }
                    if builds.value != convoyThreads {
                        failures.append("\(builds.value) factory runs for \(convoyThreads) singletons")
                    }
                    return run.nanoseconds
                }
            ])
        let factoryNanoseconds = Double(factoryMicroseconds) * 1_000
        return ScenarioResult(
            name: "J-convoy", title: "J 8 threads × 8 slow singletons",
            scopegraph: figures[0],
            extraFields: [("factory_ns", factoryNanoseconds)],
            target: Target(
                text: "≤ 2 × one factory", measured: figures[0].median / factoryNanoseconds, limit: 2,
                alsoRequired: failures.isEmpty),
            notes: ["wall ns for all eight; one construction lock would take 8 × 5 ms = 40 ms"],
            failures: failures)
    }
}

/// A counter shared by threads.
final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only touched with `lock` held.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
