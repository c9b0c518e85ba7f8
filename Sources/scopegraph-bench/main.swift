import Foundation
import ScopeGraphTesting

// scopegraph-bench: ScopeGraph against direct construction and a naive locator, scenario by
// scenario, in one process. Run with `swift run -c release scopegraph-bench`.

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message { FileHandle.standardError.write(Data("\(message)\n".utf8)) }
    print(Options.usage)
    exit(error.message == nil ? 0 : 2)
}

/// The 1, 5 and 15 minute load averages, to judge how noisy the machine was.
func loadAverage() -> String? {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
        .map { $0.split(separator: " ").prefix(3).joined(separator: " ") }
}

func progress(_ text: String) { FileHandle.standardError.write(Data("\(text)\n".utf8)) }

let harness = Harness(options: options)
let mode =
    options.callgrind ? "callgrind (\(options.callgrindOperations) operations)" : options.quick ? "quick" : "full"
#if DEBUG
let build = "debug (timings meaningless: use -c release)"
#else
let build = "release"
#endif
print(
    "scopegraph-bench: \(mode), \(build) build, \(ProcessInfo.processInfo.activeProcessorCount) cores, "
        + "\(Int(options.measurementNanoseconds / 1e6)) ms per measurement, median of \(options.rounds) rounds, "
        + "\(Date())" + (loadAverage().map { ", load average \($0)" } ?? ""))

var results: [ScenarioResult] = []
do {
    for scenario in Scenarios.all where options.includes(scenario.letter) {
        progress("running \(scenario.letter)…")
        if let result = try scenario.run(harness) { results.append(result) }
    }
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}

if options.callgrind {
    print("callgrind run finished (checksum \(harness.sink.checksum))")
    exit(0)
}

print("")
Report.printTable(results)
var machineLines: [String] = []
if options.includes("P") {
    progress("measuring memory footprint…")
    let count = Footprint.count(quick: options.quick)
    let footprint = Footprint.measure(count: count)
    print("")
    Footprint.printFigures(footprint, count: count)
    machineLines.append(Footprint.machineLine(footprint))
}
print("")
Report.printMachineLines(results)
for line in machineLines { print(line) }
print("checksum \(harness.sink.checksum)" + (loadAverage().map { ", load average at the end \($0)" } ?? ""))

let failed = results.contains { !$0.failures.isEmpty }
exit(failed ? 1 : 0)
