import Foundation

extension DependencyGraph {
    /// The graph in Graphviz DOT: containers as (nested) clusters, lifetimes as node styles,
    /// cycles and failing registrations in red, warnings in orange, missing dependencies as
    /// dashed red nodes outside every cluster.
    ///
    /// | lifetime | style |
    /// |---|---|
    /// | `graph` | rounded box |
    /// | `unique` | dashed border |
    /// | `singleton` | bold border |
    /// | `weakSingleton` | dotted border |
    /// | `eagerSingleton` | bold border, grey fill |
    /// | `perContainer` | yellow fill |
    ///
    /// ```sh
    /// swift run scopegraph-demo --graph dot | dot -Tsvg -o graph.svg
    /// ```
    /// - Returns: A `digraph` that `dot -Tsvg` renders.
    public func dot() -> String {
        var lines = [
            "digraph ScopeGraph {",
            "  rankdir=LR;",
            "  graph [fontname=\"Helvetica\", fontsize=12];",
            "  node [shape=box, style=\"rounded\", fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        for cluster in clusters(in: nil) { dotCluster(cluster, depth: 1, into: &lines) }
        for link in links {
            let attributes = link.isCycle ? " [color=\"red\", penwidth=2, label=\"cycle\"]" : ""
            lines.append("  n\(link.from) -> n\(link.to)\(attributes);")
        }
        for (index, item) in missing.enumerated() {
            lines.append(
                "  missing\(index) [label=\(Self.dotQuoted([item.key.description, "not registered"])), style=\"dashed\", color=\"red\", fontcolor=\"red\"];"
            )
            lines.append("  n\(item.from) -> missing\(index) [color=\"red\", style=\"dashed\"];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private func dotCluster(_ index: Int, depth: Int, into lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        lines.append("\(indent)subgraph cluster_\(index) {")
        lines.append("\(indent)  label=\(Self.dotQuoted(label(ofCluster: index)));")
        lines.append("\(indent)  style=\(clusters[index].isOutside ? "\"rounded,dashed\"" : "\"rounded\"");")
        let members = nodes(in: index)
        for node in members {
            var attributes = [
                "label=\(Self.dotQuoted([nodes[node].key.description, nodes[node].lifetime.description]))"
            ]
            attributes += Self.dotStyle(nodes[node].lifetime)
            switch severity(ofNode: node) {
            case .error: attributes += ["color=\"red\"", "fontcolor=\"red\"", "penwidth=2"]
            case .warning: attributes += ["color=\"orange\"", "penwidth=2"]
            case nil: break
            }
            lines.append("\(indent)  n\(node) [\(attributes.joined(separator: ", "))];")
        }
        let children = clusters(in: index)
        if members.isEmpty && children.isEmpty {
            lines.append("\(indent)  empty\(index) [label=\"no registrations\", shape=plaintext];")
        }
        for child in children { dotCluster(child, depth: depth + 1, into: &lines) }
        lines.append("\(indent)}")
    }

    private static func dotStyle(_ lifetime: Lifetime) -> [String] {
        switch lifetime {
        case .graph: []
        case .unique: ["style=\"rounded,dashed\""]
        case .singleton: ["style=\"rounded,bold\""]
        case .weakSingleton: ["style=\"rounded,dotted\""]
        case .eagerSingleton: ["style=\"rounded,bold,filled\"", "fillcolor=\"lightgrey\""]
        case .perContainer: ["style=\"rounded,filled\"", "fillcolor=\"lightyellow\""]
        }
    }

    /// A DOT string literal of `lines`, centred line by line.
    static func dotQuoted(_ lines: [String]) -> String {
        let escaped = lines.map { line in
            line.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
        }
        return "\"" + escaped.joined(separator: "\\n") + "\""
    }
}
