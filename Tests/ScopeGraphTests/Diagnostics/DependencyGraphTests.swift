import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

private final class GLogger: Sendable {}
private final class GDatabase: Sendable {}
private final class GCatalog: Sendable {}
private final class GCart: Sendable {}
private final class GSession: Sendable {}
private final class GPing: Sendable {}
private final class GPong: Sendable {}
private protocol GPayments: Sendable {}
private final class GCheckout: Sendable {}

@Suite struct DependencyGraphTests {
    /// app (Logger singleton, Database eagerSingleton, Session(String) unique)
    ///   catalog (Catalog perContainer -> Database, Logger)
    ///   cart, collaborates with catalog (Cart -> Catalog, Logger)
    private func shopTree() -> (app: Container, children: [Container]) {
        let app = Container(name: "app")
        app.register(GLogger.self, lifetime: .singleton) { _ in GLogger() }
        app.register(GDatabase.self, tag: "main", lifetime: .eagerSingleton, needing: GLogger.self) { GDatabase() }
        app.register(GSession.self, lifetime: .unique) { (_, _: String) in GSession() }
        let catalog = app.makeChild(name: "catalog")
        catalog.register(GCatalog.self, lifetime: .perContainer, needing: GDatabase.self, tagged: "main") { GCatalog() }
        let cart = app.makeChild(name: "cart")
        cart.collaborate(with: catalog)
        cart.register(GCart.self) { r in
            _ = try r.resolve(GCatalog.self)
            _ = try r.resolve(GLogger.self)
            return GCart()
        }
        return (app, [catalog, cart])
    }

    /// app (Ping weakSingleton <-> Pong graph: a constructor cycle; Checkout -> Payments, missing),
    /// with an empty child.
    private func brokenTree() -> (app: Container, empty: Container) {
        let app = Container(name: "app")
        app.register(GPing.self, lifetime: .weakSingleton, needing: GPong.self) { GPing() }
        app.register(GPong.self, needing: GPing.self) { GPong() }
        app.register(GCheckout.self) { r in
            _ = try r.resolve((any GPayments).self)
            return GCheckout()
        }
        return (app, app.makeChild(name: "empty"))
    }

    @Test func nodesAreEveryRegistrationInSubtreeOrder() {
        let tree = shopTree()
        let graph = tree.app.dependencyGraph()
        #expect(
            graph.nodes.map(\.description) == [
                "GLogger (singleton) in 'app'",
                #"GDatabase[tag: "main"] (eagerSingleton) in 'app'"#,
                "GSession(String) (unique) in 'app'",
                "GCatalog (perContainer) in 'catalog'",
                "GCart (graph) in 'cart'",
            ])
        #expect(
            graph.nodes[3]
                == DependencyGraph.Node(
                    key: ServiceKey(typeName: "GCatalog"), container: "catalog", lifetime: .perContainer))
    }

    @Test func edgesAreTheDependenciesObservedByTheDryRun() {
        let tree = shopTree()
        let graph = tree.app.dependencyGraph()
        #expect(
            graph.edges.map(\.description) == [
                #"GDatabase[tag: "main"] -> GLogger"#,
                #"GCatalog -> GDatabase[tag: "main"]"#,
                "GCart -> GCatalog",
                "GCart -> GLogger",
            ])
        #expect(graph.cycleEdges.isEmpty)
        #expect(graph.issues.map(\.key.description) == ["GSession(String)"], "skipped: it needs a String")
    }

    @Test func sampleArgumentsAddTheEdgesOfRegistrationsThatNeedThem() {
        let app = Container(name: "app")
        app.register(GLogger.self, lifetime: .singleton) { _ in GLogger() }
        app.register(GSession.self) { (r, _: String) in
            _ = try r.resolve(GLogger.self)
            return GSession()
        }
        #expect(app.dependencyGraph().edges.isEmpty)
        var options = ValidationOptions()
        options.provideArguments(for: GSession.self, "token")
        #expect(app.dependencyGraph(with: options).edges.map(\.description) == ["GSession(String) -> GLogger"])
    }

    @Test func aChildsGraphShowsTheOutsideRegistrationsItUses() {
        let tree = shopTree()
        let graph = tree.children[1].dependencyGraph()
        #expect(
            graph.nodes.map(\.description) == [
                "GCart (graph) in 'cart'",
                #"GDatabase[tag: "main"] (eagerSingleton) in 'app'"#,
                "GLogger (singleton) in 'app'",
                "GCatalog (perContainer) in 'catalog'",
            ])
        #expect(graph.dot().contains("label=\"catalog (outside)\";"))
    }

    /// How the DOT of a graph whose first container is "app" begins, up to that container's
    /// first node.
    static let dotOfAppBegins = #"""
        digraph ScopeGraph {
          rankdir=LR;
          graph [fontname="Helvetica", fontsize=12];
          node [shape=box, style="rounded", fontname="Helvetica", fontsize=11];
          edge [fontname="Helvetica", fontsize=10];
          subgraph cluster_0 {
            label="app";
            style="rounded";

        """#

    @Test func dotOfAKnownTree() {
        let tree = shopTree()
        #expect(
            tree.app.dependencyGraph().dot() == Self.dotOfAppBegins + #"""
                    n0 [label="GLogger\nsingleton", style="rounded,bold"];
                    n1 [label="GDatabase[tag: \"main\"]\neagerSingleton", style="rounded,bold,filled", fillcolor="lightgrey"];
                    n2 [label="GSession(String)\nunique", style="rounded,dashed", color="orange", penwidth=2];
                    subgraph cluster_1 {
                      label="catalog";
                      style="rounded";
                      n3 [label="GCatalog\nperContainer", style="rounded,filled", fillcolor="lightyellow"];
                    }
                    subgraph cluster_2 {
                      label="cart\ncollaborates with: catalog";
                      style="rounded";
                      n4 [label="GCart\ngraph"];
                    }
                  }
                  n1 -> n0;
                  n3 -> n1;
                  n4 -> n3;
                  n4 -> n0;
                }

                """#)
    }

    @Test func dotHighlightsCyclesErrorsAndMissingDependencies() {
        let tree = brokenTree()
        #expect(
            tree.app.dependencyGraph().dot() == Self.dotOfAppBegins + #"""
                    n0 [label="GPing\nweakSingleton", style="rounded,dotted", color="red", fontcolor="red", penwidth=2];
                    n1 [label="GPong\ngraph", color="red", fontcolor="red", penwidth=2];
                    n2 [label="GCheckout\ngraph", color="red", fontcolor="red", penwidth=2];
                    subgraph cluster_1 {
                      label="empty";
                      style="rounded";
                      empty1 [label="no registrations", shape=plaintext];
                    }
                  }
                  n0 -> n1 [color="red", penwidth=2, label="cycle"];
                  n1 -> n0 [color="red", penwidth=2, label="cycle"];
                  missing0 [label="GPayments\nnot registered", style="dashed", color="red", fontcolor="red"];
                  n2 -> missing0 [color="red", style="dashed"];
                }

                """#)
    }

    @Test func aMissingKeyReachedByTwoDryRunsIsOneNodePerDependent() {
        let app = Container(name: "app")
        // GCheckout needs GPayments (missing); GCart needs GCheckout: both dry runs reach it.
        app.register(GCheckout.self, needing: GPayments.self) { GCheckout() }
        app.register(GCart.self, needing: GCheckout.self) { GCart() }
        let dot = app.dependencyGraph().dot()
        #expect(dot.components(separatedBy: "not registered").count - 1 == 1, "\(dot)")
        #expect(!dot.contains("missing1"))
    }

    @Test func mermaidOfAKnownTree() {
        let tree = shopTree()
        #expect(
            tree.app.dependencyGraph().mermaid() == """
                flowchart LR
                  subgraph c0["app"]
                    n0["GLogger<br/>singleton"]
                    n1["GDatabase[tag: #quot;main#quot;]<br/>eagerSingleton"]
                    n2["GSession(String)<br/>unique"]
                    subgraph c1["catalog"]
                      n3["GCatalog<br/>perContainer"]
                    end
                    subgraph c2["cart<br/>collaborates with: catalog"]
                      n4["GCart<br/>graph"]
                    end
                  end
                  n1 --> n0
                  n3 --> n1
                  n4 --> n3
                  n4 --> n0
                  classDef lifetime_graph stroke-width:1px
                  class n4 lifetime_graph
                  classDef lifetime_unique stroke-dasharray:5 5
                  class n2 lifetime_unique
                  classDef lifetime_singleton stroke-width:3px
                  class n0 lifetime_singleton
                  classDef lifetime_eagerSingleton stroke-width:3px,fill:#ddd
                  class n1 lifetime_eagerSingleton
                  classDef lifetime_perContainer fill:#ffd
                  class n3 lifetime_perContainer
                  classDef warning stroke:#e80,stroke-width:2px
                  class n2 warning

                """)
    }

    @Test func mermaidHighlightsCyclesErrorsAndMissingDependencies() {
        let tree = brokenTree()
        #expect(
            tree.app.dependencyGraph().mermaid() == """
                flowchart LR
                  subgraph c0["app"]
                    n0["GPing<br/>weakSingleton"]
                    n1["GPong<br/>graph"]
                    n2["GCheckout<br/>graph"]
                    subgraph c1["empty"]
                    end
                  end
                  n0 -->|cycle| n1
                  n1 -->|cycle| n0
                  missing0["GPayments<br/>not registered"]
                  n2 -.-> missing0
                  classDef lifetime_graph stroke-width:1px
                  class n1,n2 lifetime_graph
                  classDef lifetime_weakSingleton stroke-width:2px,stroke-dasharray:2 2
                  class n0 lifetime_weakSingleton
                  classDef error stroke:#d00,stroke-width:2px,color:#d00
                  class n0,n1,n2,missing0 error
                  linkStyle 0,1,2 stroke:#d00,stroke-width:2px

                """)
        #expect(
            tree.app.dependencyGraph().cycleEdges.map(\.description).sorted() == ["GPing -> GPong", "GPong -> GPing"])
    }

    // Rendering needs Graphviz's `dot` (`apt-get install -y graphviz`; .ci/run installs it).
    // Without it this test is skipped, and the skip names the reason.
    @Test(.enabled(if: GraphvizDot.path != nil, "Graphviz `dot` is not installed: apt-get install -y graphviz"))
    func graphvizRendersTheDotOfAMultiContainerTree() throws {
        let shop = shopTree()
        let broken = brokenTree()
        for graph in [shop.app.dependencyGraph(), shop.children[1].dependencyGraph(), broken.app.dependencyGraph()] {
            let svg = try GraphvizDot.render(graph.dot())
            #expect(svg.contains("<svg"))
            #expect(svg.contains("cluster_0"))
        }
    }
}

/// Runs Graphviz's `dot` when it is installed.
enum GraphvizDot {
    static let path: String? = ["/usr/bin/dot", "/usr/local/bin/dot", "/opt/homebrew/bin/dot"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Renders `source` with `dot -Tsvg` and returns the SVG; throws when `dot` rejects it.
    static func render(_ source: String) throws -> String {
        guard let path else { throw Failure(description: "dot is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(source.utf8))
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output cannot block `dot`.
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        let messages = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stderr = String(decoding: messages, as: UTF8.self)
        guard process.terminationStatus == 0, stderr.isEmpty else {
            throw Failure(description: "dot exited with \(process.terminationStatus): \(stderr)")
        }
        return String(decoding: svg, as: UTF8.self)
    }
}

// MARK: Edges from blocks and forwarded types

extension DependencyGraphTests {
    /// Edges of onResolved blocks and of forwarded types; the renderings' basics.
    @Suite struct Combined: ProbeFixtures {
        /// An onResolved dependency is an edge, and a forwarded request points at the registration that answered.
        @Test func edgesIncludeBlockDependenciesAndPointAtTheRegistrationOfAForwardedType() throws {
            let c = Container(name: "c")
            c.register(Box.self) { _ in Box() }.onResolved { r, b in b.dep = try r.resolve() }
            c.register(Dep.self, lifetime: .singleton) { _ in Dep() }
            c.register(Impl.self) { _ in Impl() }.implements((any Service).self)
            c.register(Top.self) { r in
                _ = try r.resolve((any Service).self)
                return Top()
            }
            let g = c.dependencyGraph()
            #expect(g.nodes.map(\.key.typeName) == ["Box", "Dep", "Impl", "Top"])
            let edges = Set(g.edges.map { "\($0.from.key.typeName)->\($0.to.key.typeName)" })
            #expect(edges.contains("Box->Dep"))
            #expect(edges.contains("Top->Impl"))
            #expect(g.dot().contains("digraph"))
            #expect(g.dot().contains("cluster"))
            #expect(g.mermaid().hasPrefix("flowchart LR"))
        }
    }
}

// MARK: Contract probes: stable nodes, owners, sandboxed edges

extension DependencyGraphTests {
    /// `dependencyGraph()` against the contract's sentences: every registration of the subtree,
    /// in a stable order, named by its owning container; edges observed by a sandboxed dry run.
    @Suite struct ContractProbes: ProbeFixtures {
        /// root (Dep singleton, Impl forwarded to Service and to Service "alias", Value(Int) tagged),
        /// feature (Box perContainer, onResolved -> Dep), screen (Top graph -> Service, Box),
        /// with `feature` and `partner` collaborating both ways.
        final class Tree: Sendable {
            let root = Container(name: "root")
            let feature: Container
            let screen: Container
            let partner = Container(name: "partner")
            let builds = Counter()

            init() {
                let builds = builds
                root.register(Dep.self, lifetime: .singleton, counting: builds) { Dep() }
                root.register(Impl.self) { _ in Impl() }
                    .implements((any Service).self)
                    .implements((any Service).self, tag: "alias")
                root.register(Value.self, tag: "sized") { (_, id: Int) in Value(id: id) }
                feature = root.makeChild(name: "feature")
                feature.register(Box.self, lifetime: .perContainer, counting: builds) { Box() }
                    .onResolved { r, box in box.dep = try r.resolve() }
                screen = feature.makeChild(name: "screen")
                screen.register(Top.self) { r in
                    _ = try r.resolve((any Service).self)
                    _ = try r.resolve(Box.self)
                    return Top()
                }
                feature.collaborateBothWays(with: partner)
                partner.register(Leaf.self) { _ in Leaf() }
            }
        }

        /// Two calls give equal node and edge arrays, and nodes are one per registration (a
        /// forwarded registration is one node, under its own key), named by the owner.
        @Test func twoCallsGiveEqualArraysWithOneNodePerRegistrationNamedByItsOwner() {
            let tree = Tree()
            let first = tree.root.dependencyGraph()
            let second = tree.root.dependencyGraph()
            #expect(first.nodes == second.nodes)
            #expect(first.edges == second.edges)
            #expect(
                first.nodes.map { "\($0.key) \($0.lifetime) \($0.container)" } == [
                    "Dep singleton root",
                    "Impl graph root",
                    #"Value[tag: "sized"](Int) graph root"#,
                    "Box perContainer feature",
                    "Top graph screen",
                ])
        }

        /// The dry run caches nothing: the singleton and the perContainer instance are built
        /// afresh by the first real resolve after the graph, and the edges of a tree whose
        /// instances are already cached are the same as those of a fresh tree.
        @Test func theDryRunLeavesNoInstanceBehindAndSeesPastTheCaches() throws {
            let fresh = Tree()
            let freshEdges = fresh.root.dependencyGraph().edges
            #expect(
                freshEdges.map(\.description) == [
                    "Box -> Dep",
                    "Top -> Impl",
                    "Top -> Box",
                ])
            let before = fresh.builds.value
            _ = try fresh.screen.resolve(Top.self)
            #expect(fresh.builds.value == before + 2, "Dep and Box were built for real, not taken from the dry run")

            let warm = Tree()
            _ = try warm.screen.resolve(Top.self)
            _ = try warm.feature.resolve(Box.self)
            #expect(warm.root.dependencyGraph().edges == freshEdges)
        }

        /// An edge is recorded for every request a factory makes, also when the instance came
        /// from the object graph of the same resolve (a `graph` key already built for a sibling).
        @Test func aDependencyServedFromTheSameObjectGraphIsStillAnEdge() {
            let c = Container(name: "c")
            c.register(Leaf.self) { _ in Leaf() }
            c.register(Mid.self, needing: Leaf.self) { Mid() }
            c.register(Top.self) { r in
                _ = try r.resolve(Mid.self)
                _ = try r.resolve(Leaf.self)  // built by Mid in this resolve
                return Top()
            }
            #expect(Set(c.dependencyGraph().edges.map(\.description)) == ["Mid -> Leaf", "Top -> Mid", "Top -> Leaf"])
        }

        /// The property-injection cycle: a block's request for an instance already built by the
        /// resolve is an edge as much as a factory's request.
        @Test func bothEdgesOfACycleBrokenByOnResolvedAreObserved() {
            let c = Container(name: "c")
            c.register(Holder.self) { _ in Holder() }.onResolved { r, h in h.top = try r.resolve() }
            c.register(Top.self, needing: Holder.self) { Top() }
            let graph = c.dependencyGraph()
            #expect(Set(graph.edges.map(\.description)) == ["Holder -> Top", "Top -> Holder"])
            #expect(graph.cycleEdges.isEmpty, "a broken cycle is not a constructor cycle")
        }

        /// A dropped child's registrations leave the graph.
        @Test func aDroppedChildsRegistrationsLeaveTheNodes() {
            let root = Container(name: "root")
            root.register(Dep.self) { _ in Dep() }
            do {
                let child = root.makeChild(name: "child")
                child.register(Top.self) { _ in Top() }
                #expect(root.dependencyGraph().nodes.map(\.container) == ["root", "child"])
                withExtendedLifetime(child) {}
            }
            #expect(root.dependencyGraph().nodes.map(\.container) == ["root"])
        }

        /// `dot()` draws every container of the subtree as a cluster (a grandchild nested in its
        /// parent), and `mermaid()` is a flowchart with a subgraph per container.
        @Test func everyContainerIsAClusterInDotAndASubgraphInMermaid() {
            let tree = Tree()
            let graph = tree.root.dependencyGraph()
            let dot = graph.dot()
            #expect(dot.hasPrefix("digraph"))
            for name in ["root", "feature", "screen"] {
                #expect(dot.contains(#"label="\#(name)"#), "\(name) is a cluster")
            }
            #expect(dot.components(separatedBy: "subgraph cluster_").count - 1 == 3)
            let mermaid = graph.mermaid()
            #expect(mermaid.hasPrefix("flowchart"))
            #expect(mermaid.components(separatedBy: "subgraph ").count - 1 == 3)
            #expect(
                mermaid.components(separatedBy: "\n").filter { $0.trimmingCharacters(in: .whitespaces) == "end" }.count
                    == 3)
        }

        /// Edges are what a factory asked for, however it asked: through an `Optional`, through
        /// `resolveAll` (one edge per registration it returned), or through `container.resolve`
        /// on the same thread; an edge joins the nodes of the owning containers.
        @Test func edgesFollowOptionalResolveAllAndDirectContainerResolves() {
            let root = Container(name: "root")
            root.register(Dep.self) { _ in Dep() }
            root.register(NamedPlugin.self, tag: "a") { _ in NamedPlugin("a") }.implements((any Plugin).self, tag: "a")
            root.register(NamedPlugin.self, tag: "b") { _ in NamedPlugin("b") }.implements((any Plugin).self, tag: "b")
            let child = root.makeChild(name: "child")
            child.register(Leaf.self, lifetime: .singleton) { _ in Leaf() }
            child.register(Top.self) { [unowned child] r in
                let _: Dep? = try r.resolve()
                _ = try r.resolveAll((any Plugin).self)
                _ = try child.resolve(Leaf.self)
                return Top()
            }
            let edges = child.dependencyGraph().edges
            #expect(
                edges.map { "\($0) (\($0.from.container) -> \($0.to.container))" } == [
                    "Top -> Dep (child -> root)",
                    #"Top -> NamedPlugin[tag: "a"] (child -> root)"#,
                    #"Top -> NamedPlugin[tag: "b"] (child -> root)"#,
                    "Top -> Leaf (child -> child)",
                ])
        }
    }
}
