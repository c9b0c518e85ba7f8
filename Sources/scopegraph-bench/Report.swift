import Foundation

/// What the issue asks of a scenario, and how this run did.
struct Target {
    /// The target as the issue states it, e.g. `≤ 1.0 × naive`.
    let text: String
    /// The ratio this run measured for it.
    let measured: Double
    let limit: Double
    /// A further condition (no mismatches, flat memory) that must also hold.
    var alsoRequired = true

    /// The same ratio taken round by round (`Figure.perRoundRatio`), when both sides were
    /// measured in the same rounds. Shown beside `measured`; the verdict is `measured`'s.
    var perRound: Double?

    var isMet: Bool { measured <= limit && alsoRequired }
}

extension Target {
    /// The target for `figure` against `reference`, measured as the ratio of their medians.
    init(text: String, _ figure: Figure, over reference: Figure, limit: Double, alsoRequired: Bool = true) {
        self.init(
            text: text, measured: figure.median / reference.median, limit: limit, alsoRequired: alsoRequired,
            perRound: figure.perRoundRatio(to: reference))
    }
}

/// The figures of one scenario.
struct ScenarioResult {
    /// `A-transient`: the letter and the machine-readable name.
    let name: String
    /// What the table shows in its first column.
    let title: String
    var scopegraph: Figure?
    var direct: Figure?
    var naive: Figure?
    /// Further fields of the machine-readable line, after the standard ones.
    var extraFields: [(String, Double)] = []
    var target: Target?
    var notes: [String] = []
    /// Broken guarantees seen while measuring (wrong instance, double build): the run fails.
    var failures: [String] = []
    /// Further machine-readable lines printed after this scenario's own.
    var extraLines: [String] = []

    /// `bench A-transient scopegraph_ns=… direct_ns=… naive_ns=…`.
    var machineLine: String {
        var fields: [(String, Double)] = []
        if let scopegraph { fields.append(("scopegraph_ns", scopegraph.median)) }
        if let direct { fields.append(("direct_ns", direct.median)) }
        if let naive { fields.append(("naive_ns", naive.median)) }
        fields += extraFields
        var cells = ["bench \(name)"] + fields.map { "\($0.0)=\(Report.number($0.1))" }
        if let target { cells.append("ratio=\(String(format: "%.3f", target.measured))") }
        if let perRound = target?.perRound { cells.append("ratio_per_round=\(String(format: "%.3f", perRound))") }
        return cells.joined(separator: " ")
    }
}

/// Prints results: a table for people, then one `bench …` line per scenario for scripts.
enum Report {
    static func number(_ value: Double) -> String {
        value.isNaN ? "nan" : String(format: "%.1f", value)
    }

    static func ratio(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        return String(format: value < 10 ? "%.2f" : "%.1f", value)
    }

    static func printTable(_ results: [ScenarioResult]) {
        let header = [
            "scenario", "ScopeGraph ns", "(min–max)", "direct ns", "naive ns", "× direct", "× naive",
            "target", "measured", "per round", "met?",
        ]
        var rows: [[String]] = []
        for result in results {
            let scopegraph = result.scopegraph?.median
            rows.append([
                result.title,
                scopegraph.map(number) ?? "—",
                result.scopegraph.map { "\(number($0.low))–\(number($0.high))" } ?? "",
                result.direct.map { number($0.median) } ?? "—",
                result.naive.map { number($0.median) } ?? "—",
                ratio(scopegraph.flatMap { s in result.direct.map { s / $0.median } }),
                ratio(scopegraph.flatMap { s in result.naive.map { s / $0.median } }),
                result.target?.text ?? "—",
                result.target.map { ratio($0.measured) } ?? "—",
                ratio(result.target?.perRound),
                result.target.map { $0.isMet ? "yes" : "NO" } ?? "—",
            ])
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 || index == 7 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        print(line(header))
        print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        for row in rows { print(line(row)) }
        let notes = results.flatMap { result in
            result.notes.map { "note: \(result.name): \($0)" } + result.failures.map { "FAILED: \(result.name): \($0)" }
        }
        if !notes.isEmpty {
            print("")
            for note in notes { print(note) }
        }
    }

    static func printMachineLines(_ results: [ScenarioResult]) {
        for result in results {
            print(result.machineLine)
            for line in result.extraLines { print(line) }
        }
    }
}
