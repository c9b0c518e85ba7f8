import Foundation

extension DependencyGraph {
    /// The graph as a Mermaid flowchart: containers as (nested) subgraphs, lifetimes as
    /// classes (`lifetime_graph`, `lifetime_singleton`, …), cycle edges labelled `cycle` and drawn red,
    /// failing registrations in the `error` class, warnings in `warning`, missing dependencies
    /// as dashed links to extra nodes.
    ///
    /// Paste the output into a Markdown code block of language `mermaid`, or any Mermaid renderer.
    /// - Returns: A `flowchart LR` definition.
    public func mermaid() -> String {
        var lines = ["flowchart LR"]
        for cluster in clusters(in: nil) { mermaidCluster(cluster, depth: 1, into: &lines) }
        var redLinks: [Int] = []
        var linkCount = 0
        for link in links {
            if link.isCycle {
                lines.append("  n\(link.from) -->|cycle| n\(link.to)")
                redLinks.append(linkCount)
            } else {
                lines.append("  n\(link.from) --> n\(link.to)")
            }
            linkCount += 1
        }
        for (index, item) in missing.enumerated() {
            lines.append("  missing\(index)[\(Self.mermaidQuoted([item.key.description, "not registered"]))]")
            lines.append("  n\(item.from) -.-> missing\(index)")
            redLinks.append(linkCount)
            linkCount += 1
        }
        for lifetime in Self.lifetimes {
            let members = nodes.indices.filter { nodes[$0].lifetime == lifetime }
            guard !members.isEmpty else { continue }
            lines.append("  classDef lifetime_\(lifetime) \(Self.mermaidStyle(lifetime))")
            lines.append("  class \(members.map { "n\($0)" }.joined(separator: ",")) lifetime_\(lifetime)")
        }
        let failing =
            nodes.indices.filter { severity(ofNode: $0) == .error }.map { "n\($0)" }
            + missing.indices.map { "missing\($0)" }
        if !failing.isEmpty {
            lines.append("  classDef error stroke:#d00,stroke-width:2px,color:#d00")
            lines.append("  class \(failing.joined(separator: ",")) error")
        }
        let warned = nodes.indices.filter { severity(ofNode: $0) == .warning }
        if !warned.isEmpty {
            lines.append("  classDef warning stroke:#e80,stroke-width:2px")
            lines.append("  class \(warned.map { "n\($0)" }.joined(separator: ",")) warning")
        }
        if !redLinks.isEmpty {
            lines.append("  linkStyle \(redLinks.map(String.init).joined(separator: ",")) stroke:#d00,stroke-width:2px")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static let lifetimes: [Lifetime] = [
        .graph, .unique, .singleton, .weakSingleton, .eagerSingleton, .perContainer,
    ]

    private func mermaidCluster(_ index: Int, depth: Int, into lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        lines.append("\(indent)subgraph c\(index)[\(Self.mermaidQuoted(label(ofCluster: index)))]")
        for node in nodes(in: index) {
            lines.append(
                "\(indent)  n\(node)[\(Self.mermaidQuoted([nodes[node].key.description, nodes[node].lifetime.description]))]"
            )
        }
        for child in clusters(in: index) { mermaidCluster(child, depth: depth + 1, into: &lines) }
        lines.append("\(indent)end")
    }

    private static func mermaidStyle(_ lifetime: Lifetime) -> String {
        switch lifetime {
        case .graph: "stroke-width:1px"
        case .unique: "stroke-dasharray:5 5"
        case .singleton: "stroke-width:3px"
        case .weakSingleton: "stroke-width:2px,stroke-dasharray:2 2"
        case .eagerSingleton: "stroke-width:3px,fill:#ddd"
        case .perContainer: "fill:#ffd"
        }
    }

    /// A Mermaid quoted label of `lines`, with quotes and angle brackets as entity codes.
    static func mermaidQuoted(_ lines: [String]) -> String {
        let escaped = lines.map { line in
            line.replacingOccurrences(of: "\"", with: "#quot;").replacingOccurrences(of: "<", with: "#lt;")
                .replacingOccurrences(of: ">", with: "#gt;")
        }
        return "\"" + escaped.joined(separator: "<br/>") + "\""
    }
}
