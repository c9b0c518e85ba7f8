/// Command-line options.
struct Options {
    /// Short runs for CI: a few milliseconds per measurement and small counts.
    var quick = false
    /// Scenarios to run, by name (`A`, `K2`); `nil` runs all.
    var filter: Set<String>?
    /// Runs a fixed count of ScopeGraph operations of the selected scenarios, for
    /// `valgrind --tool=callgrind`; no timing, no report.
    var callgrind = false
    var callgrindOperations = 100_000
    /// Which contender `--callgrind` runs: 0 ScopeGraph, 1 direct, 2 naive (when the scenario has one).
    var callgrindContender = 0

    /// Time each measurement is calibrated to, in nanoseconds.
    var measurementNanoseconds: Double { quick ? 2_000_000 : 20_000_000 }
    /// Timed repetitions per contender; the median is reported.
    var rounds: Int { quick ? 3 : 7 }
    /// Scenario G: resolves per thread.
    var concurrentOperations: Int { quick ? 10_000 : 1_000_000 }
    /// Scenario K: requests before the first and before the second memory reading.
    var requestsBeforeFirstReading: Int { 1_000 }
    var requestsBeforeSecondReading: Int { quick ? 10_000 : 1_000_000 }
    /// Scenario K2: requests before the second memory reading.
    var scopedRequestsBeforeSecondReading: Int { quick ? 10_000 : 100_000 }

    static let usage = """
        usage: scopegraph-bench [--quick] [--filter LETTERS] [--callgrind [COUNT]]
          --quick           run every scenario briefly (CI smoke run; timings meaningless)
          --filter LETTERS  run only these scenarios, e.g. --filter ACG or --filter KK2 (a
                            digit belongs to the letter before it); P is the memory
                            footprint (bytes per registration and per container)
          --callgrind [N]   run N ScopeGraph operations of the selected scenarios, untimed,
                            for valgrind --tool=callgrind (default 100000); G, J and M are
                            skipped
          --contender I     with --callgrind: run contender I instead (0 ScopeGraph, 1 direct,
                            2 naive or the scenario's third contender)
        """

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick":
                quick = true
            case "--filter":
                guard let letters = remaining.popFirst() else { throw UsageError("--filter needs letters") }
                filter = Self.scenarioNames(letters.uppercased())
            case "--callgrind":
                callgrind = true
                if let next = remaining.first, let count = Int(next) {
                    callgrindOperations = count
                    remaining.removeFirst()
                }
            case "--contender":
                guard let index = remaining.popFirst().flatMap({ Int($0) }), (0...2).contains(index) else {
                    throw UsageError("--contender needs 0, 1 or 2")
                }
                callgrindContender = index
            case "--help", "-h":
                throw UsageError(nil)
            default:
                throw UsageError("unknown argument \(argument)")
            }
        }
    }

    func includes(_ name: String) -> Bool { filter?.contains(name) ?? true }

    /// `"AK2C"` → `["A", "K2", "C"]`: a digit belongs to the letter before it.
    static func scenarioNames(_ letters: String) -> Set<String> {
        var names: [String] = []
        for character in letters {
            if character.isNumber, !names.isEmpty {
                names[names.count - 1].append(character)
            } else {
                names.append(String(character))
            }
        }
        return Set(names)
    }
}

struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
