package import ScopeGraph
package import Testing

// Rounds: the stress suites repeat a race many times, and report the rounds that went wrong.
// A round returns its problems (none: it passed); `runRounds` collects them, and the test checks
// the report once. Work on N threads in a round is `runOnThreads(n, timeout:)` (Threads.swift),
// in N tasks `startTasks(n)` (Tasks.swift); the whole run is bounded by the caller's watchdog
// (`withAsyncWatchdog`) or by each round's own bounded waits.
//
//     try await withAsyncWatchdog(seconds: 60) {
//         await runRounds(40) { round in
//             let container = Container(name: "round \(round)")
//             …
//             return runs.value == 1 ? [] : ["\(runs.value) runs"]
//         }.expectNoFailures()
//     }

/// What a run of rounds found: the rounds that reported problems.
package struct RoundsReport: Sendable {
    /// How many rounds ran (fewer than asked when the run stopped early).
    package var rounds = 0
    /// One line per failed round: `round 3: …`.
    package var failures: [String] = []

    package init() {}

    /// Whether every round passed.
    package var isClean: Bool { failures.isEmpty }

    /// Records one issue when a round failed: how many of the rounds did, and the first few.
    package func expectNoFailures(_ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        let prefix = comment.isEmpty ? "" : "\(comment): "
        #expect(
            isClean, "\(prefix)\(failures.count) of \(rounds) rounds failed; first: \(failures.prefix(5))",
            sourceLocation: sourceLocation)
    }

    mutating func record(round: Int, problems: [String]) {
        rounds += 1
        if !problems.isEmpty { failures.append("round \(round): \(problems.joined(separator: "; "))") }
    }
}

/// Runs `round(index)` for `index` in `0..<count`, in order, and reports the rounds that
/// returned problems; stops once `stopAfter` rounds have failed (a hang that repeats need not
/// be waited out many times).
package func runRounds(
    _ count: Int, stopAfter: Int = .max, _ round: (Int) throws -> [String]
) rethrows -> RoundsReport {
    var report = RoundsReport()
    for index in 0..<count {
        report.record(round: index, problems: try round(index))
        if report.failures.count >= stopAfter { break }
    }
    return report
}

/// Runs the async `round(index)` for `index` in `0..<count`, in order, and reports the rounds
/// that returned problems; stops once `stopAfter` rounds have failed.
package func runRounds(
    _ count: Int, stopAfter: Int = .max, _ round: (Int) async throws -> [String]
) async rethrows -> RoundsReport {
    var report = RoundsReport()
    for index in 0..<count {
        report.record(round: index, problems: try await round(index))
        if report.failures.count >= stopAfter { break }
    }
    return report
}

/// The usual stress test: `count` rounds under one `withAsyncWatchdog(seconds:)`, and an issue
/// naming the rounds that failed (or the watchdog's, when the rounds hang).
package func checkRounds(
    _ count: Int, watchdog seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation,
    _ round: @escaping @Sendable (Int) async throws -> [String]
) async throws {
    let report = try await withAsyncWatchdog(seconds: seconds, sourceLocation: sourceLocation) {
        try await runRounds(count, round)
    }
    report?.expectNoFailures(sourceLocation: sourceLocation)
}

/// `checkRounds`, each round racing in a container of its own, made for it (named "round 0",
/// "round 1", …): the opening of most stress tests.
package func checkRoundsInNewContainers(
    _ count: Int, watchdog seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation,
    _ round: @escaping @Sendable (_ round: Int, _ container: Container) async throws -> [String]
) async throws {
    try await checkRounds(count, watchdog: seconds, sourceLocation: sourceLocation) { index in
        try await round(index, Container(name: "round \(index)"))
    }
}
