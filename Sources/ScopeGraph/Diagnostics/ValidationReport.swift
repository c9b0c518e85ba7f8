/// What `Container.validate()` found: every issue of every registration in the validated
/// subtree.
///
/// ```swift
/// let report = app.validate()
/// if !report.isValid {
///     print(report)      // issues grouped by container, one line each
/// }
/// ```
public struct ValidationReport: Sendable, CustomStringConvertible {
    /// Every issue found, grouped by container (in subtree order: a container before its
    /// children), and within a container in registration order.
    public let issues: [ValidationIssue]
    /// The names of the validated containers, in subtree order.
    public let containers: [String]
    /// How many registrations were checked or skipped (forwarded keys not counted).
    public let registrationCount: Int

    init(issues: [ValidationIssue], containers: [String], registrationCount: Int) {
        self.containers = containers
        self.registrationCount = registrationCount
        let order = Dictionary(
            containers.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        self.issues = issues.enumerated()
            .sorted {
                (order[$0.element.container] ?? .max, $0.offset) < (order[$1.element.container] ?? .max, $1.offset)
            }
            .map(\.element)
    }

    /// True when no issue has `error` severity: every checked registration resolves.
    /// Warnings do not make a report invalid.
    public var isValid: Bool { !issues.contains { $0.severity == .error } }

    /// The issues of error severity.
    public var errors: [ValidationIssue] { issues.filter { $0.severity == .error } }

    /// The issues of warning severity.
    public var warnings: [ValidationIssue] { issues.filter { $0.severity == .warning } }

    /// A summary line, then the issues grouped by container:
    ///
    /// ```
    /// Validation failed: 1 error, 1 warning (5 registrations in 3 containers)
    /// Container 'checkout'
    ///   error: Checkout: missing dependency: Checkout -> PaymentGateway; …
    ///   warning: Receipt(Int): skipped: needs runtime arguments (Int); …
    /// ```
    public var description: String {
        let scope = "\(Self.count(registrationCount, "registration")) in \(Self.count(containers.count, "container"))"
        let errorCount = errors.count
        let warningCount = issues.count - errorCount
        var lines: [String]
        if issues.isEmpty {
            lines = ["Validation passed: \(scope), no issues"]
        } else if errorCount == 0 {
            lines = ["Validation passed with \(Self.count(warningCount, "warning")) (\(scope))"]
        } else {
            var counts = [Self.count(errorCount, "error")]
            if warningCount > 0 { counts.append(Self.count(warningCount, "warning")) }
            lines = ["Validation failed: \(counts.joined(separator: ", ")) (\(scope))"]
        }
        var groups: [(container: String, issues: [ValidationIssue])] = []
        for issue in issues {
            if groups.last?.container == issue.container {
                groups[groups.count - 1].issues.append(issue)
            } else {
                groups.append((issue.container, [issue]))
            }
        }
        for group in groups {
            lines.append("Container '\(group.container)'")
            for issue in group.issues { lines.append("  \(issue.severity): \(issue.key): \(issue.message)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func count(_ value: Int, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }
}
