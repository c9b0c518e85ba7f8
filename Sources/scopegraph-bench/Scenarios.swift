import ScopeGraphTesting

/// One lettered scenario of the issue.
struct Scenario {
    let letter: String
    /// Returns `nil` when the scenario has nothing to do in this mode (callgrind).
    let run: (Harness) throws -> ScenarioResult?
}

/// The scenarios, in the order. Each builds its own containers, so none sees
/// another's registrations or caches.
enum Scenarios {
    static var all: [Scenario] {
        [
            Scenario(letter: "A", run: transient),
            Scenario(letter: "B", run: transientWithDependencies),
            Scenario(letter: "C", run: cachedSingleton),
            Scenario(letter: "D", run: throughThreeParents),
            Scenario(letter: "E", run: graphOfTen),
            Scenario(letter: "F", run: thousandRegistrations),
            Scenario(letter: "G", run: ConcurrentScenarios.twoThreadsCached),
            Scenario(letter: "H", run: manyRegistrations),
            Scenario(letter: "I", run: throughCollaborationChain),
            Scenario(letter: "J", run: ConcurrentScenarios.startupConvoy),
            Scenario(letter: "K", run: RequestScope.perRequest),
            Scenario(letter: "K2", run: ScopedRequest.perScopedRequest),
            Scenario(letter: "L", run: AsyncScenarios.resolveAsyncCached),
            Scenario(letter: "M", run: AsyncScenarios.thousandTasks),
            Scenario(letter: "N", run: AsyncScenarios.resolveAsyncTransient),
        ]
    }

    // MARK: A, D, H, I: a transient

    /// Registers the transient of scenario A in `container`.
    static func registerTransient(in container: Container) {
        container.register((any Transient).self, lifetime: .unique) { _ in TransientService() }
    }

    /// A contender resolving the transient from `container`.
    static func resolvingTransient(_ label: String, from container: Container, into sink: Sink) -> Contender {
        Contender(label) { count in
            for _ in 0..<count { sink.keep(try container.resolve((any Transient).self)) }
        }
    }

    static func directTransient(into sink: Sink) -> Contender {
        let direct = DirectComposition()
        return Contender("direct") { count in
            for _ in 0..<count { sink.keep(direct.transient()) }
        }
    }

    static func transient(_ harness: Harness) throws -> ScenarioResult {
        let container = Container(name: "app")
        registerTransient(in: container)
        let naive = NaiveLocator()
        naive.register((any Transient).self) { TransientService() }
        let sink = harness.sink
        let figures = try harness.measure([
            resolvingTransient("scopegraph", from: container, into: sink),
            directTransient(into: sink),
            Contender("naive") { count in
                for _ in 0..<count { sink.keep(naive.resolve((any Transient).self)) }
            },
        ])
        return ScenarioResult(
            name: "A-transient", title: "A transient (.unique) by protocol",
            scopegraph: figures[0], direct: figures[1], naive: figures[2],
            target: Target(text: "≤ 0.6 × naive", figures[0], over: figures[2], limit: 0.6))
    }

    // MARK: B

    static func transientWithDependencies(_ harness: Harness) throws -> ScenarioResult {
        let container = Container(name: "app")
        container.register((any FirstPart).self, lifetime: .unique) { _ in FirstPartService() }
        container.register((any SecondPart).self, lifetime: .unique) { _ in SecondPartService() }
        container.register((any ThirdPart).self, lifetime: .unique) { _ in ThirdPartService() }
        container.register((any Assembly).self, lifetime: .unique) { r in
            AssemblyService(first: try r.resolve(), second: try r.resolve(), third: try r.resolve())
        }
        let naive = NaiveLocator()
        naive.register((any FirstPart).self) { FirstPartService() }
        naive.register((any SecondPart).self) { SecondPartService() }
        naive.register((any ThirdPart).self) { ThirdPartService() }
        naive.register((any Assembly).self) { [unowned naive] in
            AssemblyService(first: naive.resolve(), second: naive.resolve(), third: naive.resolve())
        }
        let direct = DirectComposition()
        let sink = harness.sink
        let figures = try harness.measure([
            Contender("scopegraph") { count in
                for _ in 0..<count { sink.keep(try container.resolve((any Assembly).self)) }
            },
            Contender("direct") { count in
                for _ in 0..<count { sink.keep(direct.assembly()) }
            },
            Contender("naive") { count in
                for _ in 0..<count { sink.keep(naive.resolve((any Assembly).self)) }
            },
        ])
        return ScenarioResult(
            name: "B-transient-three-deps", title: "B transient + 3 transient deps",
            scopegraph: figures[0], direct: figures[1], naive: figures[2],
            target: Target(text: "≤ 0.8 × naive", figures[0], over: figures[2], limit: 0.8))
    }

    // MARK: C

    static func cachedSingleton(_ harness: Harness) throws -> ScenarioResult {
        let container = Container(name: "app")
        container.register((any Settings).self, lifetime: .singleton) { _ in AppSettings() }
        _ = try container.resolve((any Settings).self)
        let naive = NaiveLocator()
        naive.registerSingleton((any Settings).self) { AppSettings() }
        _ = naive.resolve((any Settings).self)
        let direct = DirectComposition()
        let sink = harness.sink
        let figures = try harness.measure([
            Contender("scopegraph") { count in
                for _ in 0..<count { sink.keep(try container.resolve((any Settings).self)) }
            },
            Contender("direct") { count in
                for _ in 0..<count { sink.keep(direct.settings()) }
            },
            Contender("naive") { count in
                for _ in 0..<count { sink.keep(naive.resolve((any Settings).self)) }
            },
        ])
        return ScenarioResult(
            name: "C-cached-singleton", title: "C cached singleton",
            scopegraph: figures[0], direct: figures[1], naive: figures[2],
            target: Target(text: "≤ 0.5 × naive", figures[0], over: figures[2], limit: 0.5))
    }

    // MARK: D

    static func throughThreeParents(_ harness: Harness) throws -> ScenarioResult {
        let root = Container(name: "root")
        registerTransient(in: root)
        let greatGrandchild = root.makeChild(name: "child").makeChild(name: "grandchild")
            .makeChild(name: "great-grandchild")
        let sink = harness.sink
        let figures = try withExtendedLifetime(greatGrandchild) {
            try harness.measure([
                resolvingTransient("scopegraph", from: greatGrandchild, into: sink),
                directTransient(into: sink),
                resolvingTransient("scopegraph-A", from: root, into: sink),
            ])
        }
        return ScenarioResult(
            name: "D-three-parents", title: "D = A from 3 levels below",
            scopegraph: figures[0], direct: figures[1],
            extraFields: [("scopegraph_a_ns", figures[2].median)],
            target: Target(text: "≤ 1.5 × our A", figures[0], over: figures[2], limit: 1.5),
            notes: ["our A measured in the same rounds: \(Report.number(figures[2].median)) ns (scopegraph_a_ns)"])
    }

    // MARK: E

    static func graphOfTen(_ harness: Harness) throws -> ScenarioResult {
        let container = Container(name: "app")
        container.register(GraphShared.self, lifetime: .graph) { _ in GraphShared() }
        container.register(GraphLeafB.self, lifetime: .unique) { _ in GraphLeafB() }
        container.register(GraphLeafD.self, lifetime: .unique) { _ in GraphLeafD() }
        container.register(GraphLeafE.self, lifetime: .unique) { _ in GraphLeafE() }
        container.register(GraphLeafA.self, lifetime: .unique) { r in GraphLeafA(shared: try r.resolve()) }
        container.register(GraphLeafC.self, lifetime: .unique) { r in GraphLeafC(leaf: try r.resolve()) }
        container.register(GraphLeft.self, lifetime: .unique) { r in
            GraphLeft(leaf: try r.resolve(), shared: try r.resolve())
        }
        container.register(GraphMiddle.self, lifetime: .unique) { r in
            GraphMiddle(leaf: try r.resolve(), shared: try r.resolve())
        }
        container.register(GraphRight.self, lifetime: .unique) { r in
            GraphRight(leaf: try r.resolve(), shared: try r.resolve())
        }
        container.register(GraphRoot.self, lifetime: .unique) { r in
            GraphRoot(left: try r.resolve(), middle: try r.resolve(), right: try r.resolve(), extra: try r.resolve())
        }
        let sample = try container.resolve(GraphRoot.self)
        let direct = DirectComposition()
        let sink = harness.sink
        let figures = try harness.measure([
            Contender("scopegraph") { count in
                for _ in 0..<count { sink.keep(try container.resolve(GraphRoot.self)) }
            },
            Contender("direct") { count in
                for _ in 0..<count { sink.keep(direct.graph()) }
            },
        ])
        return ScenarioResult(
            name: "E-graph-of-10", title: "E graph of 10, 1 shared .graph",
            scopegraph: figures[0], direct: figures[1],
            target: Target(
                text: "≤ 4 × direct", figures[0], over: figures[1], limit: 4,
                alsoRequired: sample.sharesOneNode),
            notes: ["naive does not apply: it has no graph lifetime to share the node with"],
            failures: sample.sharesOneNode ? [] : ["the four users of the .graph node got different instances"])
    }

    // MARK: F

    /// Scenario F's 1,000 distinct keys: one protocol under 1,000 tags (Swift cannot
    /// generate 1,000 distinct types at run time without unspecialized generic recursion).
    static let registrationCount = 1_000

    static func thousandRegistrations(_ harness: Harness) throws -> ScenarioResult {
        let names = (0..<registrationCount).map { "service-\($0)" }
        let tags = names.map { ServiceTag($0) }
        let direct = DirectComposition()
        let sink = harness.sink
        let figures = try harness.measure([
            Contender("scopegraph") { count in
                for _ in 0..<count {
                    let container = Container(name: "app")
                    for tag in tags {
                        container.register((any Numbered).self, tag: tag, lifetime: .unique) { _ in NumberedService() }
                    }
                    for tag in tags { sink.keep(try container.resolve((any Numbered).self, tag: tag)) }
                }
            },
            Contender("direct") { count in
                for _ in 0..<count {
                    for _ in tags { sink.keep(direct.numbered()) }
                }
            },
            Contender("naive") { count in
                for _ in 0..<count {
                    let naive = NaiveLocator()
                    for name in names { naive.register((any Numbered).self, tag: name) { NumberedService() } }
                    for name in names { sink.keep(naive.resolve((any Numbered).self, tag: name)) }
                }
            },
        ])
        return ScenarioResult(
            name: "F-1000-registrations", title: "F 1,000 register + resolve (total)",
            scopegraph: figures[0], direct: figures[1], naive: figures[2],
            target: Target(text: "≤ 1.3 × naive", figures[0], over: figures[2], limit: 1.3),
            notes: [
                "1,000 keys = one protocol under 1,000 ServiceTags (naive keyed by type and tag); a fresh container / locator per operation; direct = 1,000 initializer calls"
            ])
    }

    // MARK: H

    static func manyRegistrations(_ harness: Harness) throws -> ScenarioResult {
        func container(withUnrelated count: Int) -> Container {
            let container = Container(name: "app")
            for index in 0..<count {
                container.register((any Numbered).self, tag: ServiceTag("unrelated-\(index)"), lifetime: .unique) { _ in
                    NumberedService()
                }
            }
            registerTransient(in: container)
            return container
        }
        let crowded = container(withUnrelated: 10_000)
        let sparse = container(withUnrelated: 10)
        let sink = harness.sink
        let figures = try harness.measure([
            resolvingTransient("scopegraph-10000", from: crowded, into: sink),
            directTransient(into: sink),
            resolvingTransient("scopegraph-10", from: sparse, into: sink),
        ])
        return ScenarioResult(
            name: "H-10000-registrations", title: "H A among 10,000 registrations",
            scopegraph: figures[0], direct: figures[1],
            extraFields: [("scopegraph_10_ns", figures[2].median)],
            target: Target(text: "≤ 1.3 × with 10", figures[0], over: figures[2], limit: 1.3),
            notes: ["with 10 unrelated registrations: \(Report.number(figures[2].median)) ns (scopegraph_10_ns)"])
    }

    // MARK: I

    static func throughCollaborationChain(_ harness: Harness) throws -> ScenarioResult {
        let links = (0...3).map { Container(name: "feature-\($0)") }
        for (from, to) in zip(links, links.dropFirst()) { from.collaborate(with: to) }
        registerTransient(in: links[3])
        let sink = harness.sink
        let figures = try withExtendedLifetime(links) {
            try harness.measure([
                resolvingTransient("scopegraph", from: links[0], into: sink),
                directTransient(into: sink),
                resolvingTransient("scopegraph-A", from: links[3], into: sink),
            ])
        }
        return ScenarioResult(
            name: "I-three-collaboration-links", title: "I A through 3 collaboration links",
            scopegraph: figures[0], direct: figures[1],
            extraFields: [("scopegraph_a_ns", figures[2].median)],
            notes: [
                "no target in the issue; our A in the same rounds: \(Report.number(figures[2].median)) ns, ratio \(Report.ratio(figures[0].median / figures[2].median))"
            ])
    }
}
