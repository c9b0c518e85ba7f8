/// The registrations of a container subtree and the dependencies between them, as observed by
/// a sandboxed dry run. Made by `Container.dependencyGraph()`; rendered by `dot()` (Graphviz)
/// and `mermaid()`.
///
/// ```swift
/// let graph = app.dependencyGraph()
/// for edge in graph.edges { print(edge.from.key, "->", edge.to.key) }
/// print(graph.dot())
/// ```
public struct DependencyGraph: Sendable {
    /// A registration.
    public struct Node: Hashable, Sendable, CustomStringConvertible {
        /// The registration's key: type, tag and argument types.
        public let key: ServiceKey
        /// The name of the container that owns the registration.
        public let container: String
        /// The registration's lifetime.
        public let lifetime: Lifetime

        /// Creates a node.
        /// - Parameters:
        ///   - key: The registration's key.
        ///   - container: The name of the owning container.
        ///   - lifetime: The registration's lifetime.
        public init(key: ServiceKey, container: String, lifetime: Lifetime) {
            self.key = key
            self.container = container
            self.lifetime = lifetime
        }

        /// `Key (lifetime) in 'container'`.
        public var description: String { "\(key) (\(lifetime)) in '\(container)'" }
    }

    /// A dependency: `from`'s factory or `onResolved` block resolved `to`.
    public struct Edge: Hashable, Sendable, CustomStringConvertible {
        /// The dependent.
        public let from: Node
        /// What its factory or `onResolved` resolved.
        public let to: Node

        /// Creates an edge.
        /// - Parameters:
        ///   - from: The dependent.
        ///   - to: The dependency.
        public init(from: Node, to: Node) {
            self.from = from
            self.to = to
        }

        /// `From -> To`.
        public var description: String { "\(from.key) -> \(to.key)" }
    }

    /// Every registration of the subtree, in subtree order (a container before its children,
    /// registration order within a container), then registrations of other containers that
    /// the subtree's registrations depend on (ancestors, collaborators), in order of first use.
    public let nodes: [Node]
    /// The dependencies observed by the dry run, grouped by dependent in node order. Includes
    /// the steps of failed resolves (a cycle's edges, the way to a missing dependency).
    public let edges: [Edge]
    /// The edges that form constructor cycles (a subset of `edges`).
    public let cycleEdges: Set<Edge>
    /// What the dry run found: the same issues `validate()` reports.
    public let issues: [ValidationIssue]

    /// A container drawn as a cluster.
    struct Cluster: Sendable {
        let name: String
        /// Index of the enclosing cluster, `nil` at top level.
        let parent: Int?
        let collaborators: [String]
        /// True for containers outside the graphed subtree.
        let isOutside: Bool
    }

    struct Link: Sendable {
        let from: Int
        let to: Int
        let isCycle: Bool
    }

    /// A dependency no registration answers.
    struct Missing: Sendable {
        let from: Int
        let key: ServiceKey
    }

    let clusters: [Cluster]
    /// The cluster of each node, by node index.
    let nodeCluster: [Int]
    let links: [Link]
    let missing: [Missing]
    /// Nodes whose dry run failed, by index (their own error, or one they depend on).
    let failedNodes: Set<Int>

    init(_ run: DryRun) {
        var clusters: [Cluster] = []
        var clusterIndex: [ObjectIdentifier: Int] = [:]
        for container in run.containers {
            let parent = container.parent.flatMap { clusterIndex[ObjectIdentifier($0)] }
            clusterIndex[ObjectIdentifier(container)] = clusters.count
            clusters.append(
                Cluster(
                    name: container.name, parent: parent, collaborators: container.collaborators.map(\.name),
                    isOutside: false))
        }
        var nodes: [Node] = []
        var nodeCluster: [Int] = []
        var nodeIndex: [ObjectIdentifier: Int] = [:]
        func add(_ entry: AnyEntry, cluster: Int) {
            nodeIndex[ObjectIdentifier(entry)] = nodes.count
            nodes.append(Node(key: entry.key.serviceKey, container: entry.ownerName, lifetime: entry.lifetime))
            nodeCluster.append(cluster)
        }
        for subject in run.subjects { add(subject.entry, cluster: clusterIndex[ObjectIdentifier(subject.container)]!) }
        // Registrations outside the subtree that the subtree depends on.
        var outsideByName: [String: Int] = [:]
        for edge in run.edges {
            for id in [edge.from, edge.to] where nodeIndex[id] == nil {
                guard let entry = run.entries[id] else { continue }
                let cluster: Int
                if let owner = entry.owner, let known = clusterIndex[ObjectIdentifier(owner)] {
                    cluster = known
                } else if let known = outsideByName[entry.ownerName] {
                    cluster = known
                } else {
                    cluster = clusters.count
                    outsideByName[entry.ownerName] = cluster
                    clusters.append(Cluster(name: entry.ownerName, parent: nil, collaborators: [], isOutside: true))
                }
                add(entry, cluster: cluster)
            }
        }
        var links = run.edges.compactMap { edge -> Link? in
            guard let from = nodeIndex[edge.from], let to = nodeIndex[edge.to] else { return nil }
            return Link(from: from, to: to, isCycle: run.cycleEdges.contains([edge.from, edge.to]))
        }
        links = links.enumerated().sorted { ($0.element.from, $0.offset) < ($1.element.from, $1.offset) }.map(\.element)
        self.nodes = nodes
        self.nodeCluster = nodeCluster
        self.clusters = clusters
        self.links = links
        self.edges = links.map { Edge(from: nodes[$0.from], to: nodes[$0.to]) }
        self.cycleEdges = Set(links.filter(\.isCycle).map { Edge(from: nodes[$0.from], to: nodes[$0.to]) })
        self.failedNodes = Set(run.failedEntries.compactMap { nodeIndex[$0] })
        self.missing = run.missing.compactMap { item in nodeIndex[item.from].map { Missing(from: $0, key: item.key) } }
        self.issues =
            ValidationReport(
                issues: run.issues, containers: run.containers.map(\.name), registrationCount: run.subjects.count
            ).issues
    }

    /// `.error` when the node at `index` fails to resolve (itself, or through a dependency),
    /// else `.warning` when an issue is about it, else `nil`.
    func severity(ofNode index: Int) -> ValidationIssue.Severity? {
        let node = nodes[index]
        let own = issues.filter { $0.key == node.key && $0.container == node.container }
        if failedNodes.contains(index) || own.contains(where: { $0.severity == .error }) { return .error }
        return own.isEmpty ? nil : .warning
    }

    /// The clusters directly inside `parent` (`nil`: top level), in order.
    func clusters(in parent: Int?) -> [Int] { clusters.indices.filter { clusters[$0].parent == parent } }

    /// The nodes of a cluster, in order.
    func nodes(in cluster: Int) -> [Int] { nodeCluster.indices.filter { nodeCluster[$0] == cluster } }

    /// The label of a cluster: its name, `(outside)` for containers beyond the subtree, and
    /// its collaboration links.
    func label(ofCluster index: Int) -> [String] {
        let cluster = clusters[index]
        var lines = [cluster.name + (cluster.isOutside ? " (outside)" : "")]
        if !cluster.collaborators.isEmpty {
            lines.append("collaborates with: " + cluster.collaborators.joined(separator: ", "))
        }
        return lines
    }
}

extension DependencyGraph {
    /// A text format the graph renders to.
    public enum Format: String, Sendable, CaseIterable {
        /// Graphviz DOT; see `dot()`.
        case dot
        /// A Mermaid flowchart; see `mermaid()`.
        case mermaid
    }

    /// The graph rendered in `format`, for command-line tools:
    ///
    /// ```swift
    /// if let format = DependencyGraph.Format(rawValue: argument) {
    ///     print(app.dependencyGraph().rendered(as: format), terminator: "")
    /// }
    /// ```
    /// - Parameter format: `.dot` or `.mermaid`.
    /// - Returns: `dot()` or `mermaid()`.
    public func rendered(as format: Format) -> String {
        switch format {
        case .dot: dot()
        case .mermaid: mermaid()
        }
    }
}
