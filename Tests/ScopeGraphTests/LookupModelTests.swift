import Foundation
import ScopeGraph
import Testing

/// What a lookup-model registration builds: the id tells which registration answered.
private struct LookupProbe: Sendable {
    let id: Int
}

/// Model-based randomized tests of the lookup order.
///
/// From fixed seeds, each run grows a random tree of containers, links them (self links,
/// duplicate links and cycles included), registers, replaces and removes registrations, drops
/// leaf containers, and after every change compares real lookups with `LookupModel`, a direct
/// transcription of the contract's `visit(N)` rules. Mutations are interleaved with lookups so
/// that the container's memoized lookups must be invalidated correctly, too.
@Suite struct LookupModelTests {
    static let seeds: Range<UInt64> = 0..<200
    static let stepsPerSeed = 100
    // Failures stop after five seeds, each reporting its first mismatch, to keep the output short.

    @Test func everyLookupAnswersWithTheRegistrationTheReferenceModelPicks() throws {
        var lookups = 0
        var failingSeeds = 0
        for seed in Self.seeds where failingSeeds < 5 {
            var run = LookupRun(seed: seed)
            for step in 0..<Self.stepsPerSeed {
                if let failure = run.step() {
                    Issue.record(Comment(rawValue: run.report(failure, step: step)))
                    failingSeeds += 1
                    break
                }
            }
            lookups += run.lookups
        }
        print("LookupModelTests: \(lookups) lookups compared with the reference model over \(Self.seeds.count) seeds")
        #expect(lookups >= 10_000, "too few lookup cases generated: \(lookups)")
    }

    @Test func resolveAllReturnsTheModelsRegistrationsNearestFirst() throws {
        var checks = 0
        var failingSeeds = 0
        for seed in Self.seeds.prefix(100) where failingSeeds < 5 {
            var run = LookupRun(seed: seed &+ 1_000_003)
            for step in 0..<40 {
                if let failure = run.step(checkingResolveAll: true) {
                    Issue.record(Comment(rawValue: run.report(failure, step: step)))
                    failingSeeds += 1
                    break
                }
            }
            checks += run.resolveAllChecks
        }
        #expect(checks >= 1_000, "too few resolveAll cases generated: \(checks)")
    }

    @Test func theModelItselfFollowsTheContractOnAHandWrittenTree() throws {
        // Guards the reference model: root <- a <- b, b links to x (a root child), x links to b.
        var model = LookupModel()
        let root = model.addContainer(parent: nil)
        let a = model.addContainer(parent: root)
        let b = model.addContainer(parent: a)
        let x = model.addContainer(parent: root)
        model.link(b, to: x)
        model.link(x, to: b)
        model.link(b, to: b)
        model.link(b, to: x)
        let key = ModelKey(tag: "t", takesArgument: false)
        #expect(model.walkOrder(from: b) == [b, x, root, a])
        #expect(model.answer(key, from: b) == nil)
        model.register(key, id: 1, in: root)
        model.register(key, id: 2, in: x)
        #expect(model.answer(key, from: b) == 2)
        #expect(model.answer(key, from: a) == 1)
        model.register(key, id: 3, in: a)
        #expect(model.answer(key, from: b) == 2)
        #expect(model.answer(key, from: x) == 2)
    }
}

// MARK: - The reference model

/// A key of the model: one type (`LookupProbe`), a tag, with or without one `Int` argument.
private struct ModelKey: Hashable, CustomStringConvertible {
    let tag: String?
    let takesArgument: Bool

    var description: String { "LookupProbe" + (tag.map { "[\($0)]" } ?? "") + (takesArgument ? "(Int)" : "") }
}

/// The contract's lookup order, written as plainly as possible.
private struct LookupModel {
    struct Node {
        let name: String
        let parent: Int?
        var isAlive = true
        var links: [Int] = []
        /// Registrations by key: the id the factory returns and the registration order.
        var registrations: [ModelKey: (id: Int, sequence: Int)] = [:]
    }

    var nodes: [Node] = []
    private var sequence = 0

    mutating func addContainer(parent: Int?) -> Int {
        nodes.append(Node(name: "c\(nodes.count)", parent: parent))
        return nodes.count - 1
    }

    /// "Linking a container with itself, or linking the same pair twice, is ignored."
    mutating func link(_ from: Int, to: Int) {
        guard from != to, !nodes[from].links.contains(to) else { return }
        nodes[from].links.append(to)
    }

    /// Last wins; a replacement counts as registered now.
    mutating func register(_ key: ModelKey, id: Int, in container: Int) {
        nodes[container].registrations[key] = (id, sequence)
        sequence += 1
    }

    /// A gone container is no longer anybody's collaborator.
    mutating func drop(_ container: Int) {
        nodes[container].isAlive = false
        for index in nodes.indices { nodes[index].links.removeAll { $0 == container } }
    }

    /// `visit(N)`: own registrations, collaborators in link order, parent; each node once.
    func walkOrder(from start: Int) -> [Int] {
        var order: [Int] = []
        func visit(_ node: Int) {
            if order.contains(node) { return }
            order.append(node)
            for collaborator in nodes[node].links { visit(collaborator) }
            if let parent = nodes[node].parent { visit(parent) }
        }
        visit(start)
        return order
    }

    /// The id of the first registration of `key` found by the walk.
    func answer(_ key: ModelKey, from start: Int) -> Int? {
        for node in walkOrder(from: start) {
            if let registration = nodes[node].registrations[key] { return registration.id }
        }
        return nil
    }

    /// True when the walk finds the key's type and tag registered with other argument types.
    func hasArgumentMismatch(_ key: ModelKey, from start: Int) -> Bool {
        let other = ModelKey(tag: key.tag, takesArgument: !key.takesArgument)
        return walkOrder(from: start).contains { nodes[$0].registrations[other] != nil }
    }

    /// `resolveAll`: argument-free registrations, nearest container first, registration order
    /// within a container, a key hidden by the same key nearer.
    func resolveAllIDs(from start: Int) -> [Int] {
        var seen: Set<ModelKey> = []
        var ids: [Int] = []
        for node in walkOrder(from: start) {
            let own = nodes[node].registrations.filter { !$0.key.takesArgument }.sorted {
                $0.value.sequence < $1.value.sequence
            }
            for (key, registration) in own where seen.insert(key).inserted { ids.append(registration.id) }
        }
        return ids
    }

    /// A short, readable description of the live tree: parents, links and registrations.
    var summary: String {
        nodes.indices.filter { nodes[$0].isAlive }.map { index in
            let node = nodes[index]
            let parent = node.parent.map { nodes[$0].name } ?? "none"
            let links = node.links.map { nodes[$0].name }.joined(separator: ", ")
            let registrations = node.registrations.sorted { $0.value.sequence < $1.value.sequence }
                .map { "\($0.key)=#\($0.value.id)" }.joined(separator: ", ")
            return "  \(node.name) parent: \(parent); links: [\(links)]; registrations: [\(registrations)]"
        }.joined(separator: "\n")
    }
}

// MARK: - One seeded run against real containers

/// What a failed comparison found.
private struct LookupFailure {
    let operation: String
    let expected: String
    let actual: String
    /// The comparison to repeat on containers rebuilt from the final model state.
    let replay: ((LookupModel) -> String)?
}

private struct LookupRun {
    let seed: UInt64
    var random: Reliability.SplitMix64
    var model = LookupModel()
    var containers: [Container?] = []
    /// Registration handles by id, with their key and container, including stale ones.
    var handles: [(id: Int, key: ModelKey, container: Int, registration: Registration<LookupProbe>)] = []
    var nextID = 1
    var lookups = 0
    var resolveAllChecks = 0
    var lastMutation = "none"

    static let tags: [String?] = [nil, "a", "b", "c"]
    static let lifetimes: [Lifetime] = [.unique, .graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer]

    init(seed: UInt64) {
        self.seed = seed
        random = Reliability.SplitMix64(seed: seed)
        let rootIndex = model.addContainer(parent: nil)
        containers.append(Container(name: model.nodes[rootIndex].name))
        for _ in 0..<(2 + random.below(6)) { addChild() }
    }

    var liveIndices: [Int] { containers.indices.filter { containers[$0] != nil } }

    mutating func randomLive() -> Int {
        let live = liveIndices
        return live[random.below(live.count)]
    }

    mutating func randomKey() -> ModelKey {
        ModelKey(tag: Self.tags[random.below(Self.tags.count)], takesArgument: random.chance(30))
    }

    mutating func addChild() {
        let parent = randomLive()
        let index = model.addContainer(parent: parent)
        containers.append(containers[parent]!.makeChild(name: model.nodes[index].name))
    }

    /// One random operation; a lookup or resolveAll compares with the model.
    mutating func step(checkingResolveAll: Bool = false) -> LookupFailure? {
        let roll = random.below(100)
        switch roll {
        case 0..<20:
            let container = randomLive()
            let key = randomKey()
            let id = nextID
            nextID += 1
            let lifetime = Self.lifetimes[random.below(Self.lifetimes.count)]
            let registration = Self.register(key, id: id, lifetime: lifetime, in: containers[container]!)
            model.register(key, id: id, in: container)
            handles.append((id, key, container, registration))
            lastMutation = "register \(key) = #\(id) (\(lifetime)) in \(model.nodes[container].name)"
        case 20..<28:
            guard !handles.isEmpty else { return nil }
            let handle = handles[random.below(handles.count)]
            guard let container = containers[handle.container] else { return nil }
            container.remove(handle.registration)
            // Removing a stale handle (replaced or already removed) must change nothing.
            if model.nodes[handle.container].registrations[handle.key]?.id == handle.id {
                model.nodes[handle.container].registrations[handle.key] = nil
            }
            lastMutation = "remove #\(handle.id) (\(handle.key)) from \(model.nodes[handle.container].name)"
        case 28..<36:
            let from = randomLive()
            let to = randomLive()
            containers[from]!.collaborate(with: containers[to]!)
            model.link(from, to: to)
            lastMutation = "\(model.nodes[from].name).collaborate(with: \(model.nodes[to].name))"
        case 36..<39:
            addChild()
            lastMutation = "makeChild \(model.nodes.count - 1)"
        case 39..<41:
            return dropALeaf()
        default:
            return checkingResolveAll ? compareResolveAll() : compareLookup()
        }
        return nil
    }

    static func register(_ key: ModelKey, id: Int, lifetime: Lifetime, in container: Container) -> Registration<
        LookupProbe
    > {
        let tag = key.tag.map { ServiceTag($0) }
        if key.takesArgument {
            return container.register(LookupProbe.self, tag: tag, lifetime: lifetime) { (_, _: Int) in
                LookupProbe(id: id)
            }
        }
        return container.register(LookupProbe.self, tag: tag, lifetime: lifetime) { _ in LookupProbe(id: id) }
    }

    /// Drops the test's reference to a leaf container (not the root): it must be freed, and
    /// lookups from its former collaborators must no longer visit it.
    mutating func dropALeaf() -> LookupFailure? {
        let leaves = liveIndices.filter { index in
            index != 0 && !liveIndices.contains { model.nodes[$0].parent == index }
        }
        guard !leaves.isEmpty else { return nil }
        let leaf = leaves[random.below(leaves.count)]
        weak let gone = containers[leaf]
        containers[leaf] = nil
        model.drop(leaf)
        lastMutation = "drop \(model.nodes[leaf].name)"
        guard gone == nil else {
            return LookupFailure(
                operation: "drop \(model.nodes[leaf].name)", expected: "the container is freed",
                actual: "it is still alive", replay: nil)
        }
        return nil
    }

    mutating func compareLookup() -> LookupFailure? {
        let start = randomLive()
        let key = randomKey()
        lookups += 1
        let expected = Self.expectation(model, key, from: start)
        let actual = Self.lookUp(key, in: containers[start]!)
        guard expected != actual else { return nil }
        let startName = model.nodes[start].name
        return LookupFailure(
            operation: "resolve \(key) from \(startName)", expected: expected, actual: actual,
            replay: { model in
                Self.lookUp(key, in: Self.rebuild(model)[start]!)
            })
    }

    mutating func compareResolveAll() -> LookupFailure? {
        let start = randomLive()
        resolveAllChecks += 1
        let expected = model.resolveAllIDs(from: start).map { "#\($0)" }.joined(separator: ", ")
        let actual = Self.resolveAll(in: containers[start]!)
        guard expected != actual else { return nil }
        return LookupFailure(
            operation: "resolveAll(LookupProbe.self) from \(model.nodes[start].name)", expected: expected,
            actual: actual,
            replay: { model in Self.resolveAll(in: Self.rebuild(model)[start]!) })
    }

    /// What the contract says a lookup gives: `#id`, or the error kind with the searched list.
    static func expectation(_ model: LookupModel, _ key: ModelKey, from start: Int) -> String {
        if let id = model.answer(key, from: start) { return "#\(id)" }
        let kind = model.hasArgumentMismatch(key, from: start) ? "argumentMismatch" : "notRegistered"
        let searched = model.walkOrder(from: start).map { model.nodes[$0].name }
        return "\(kind) searched \(searched)"
    }

    /// What the container gives, in the same form as `expectation`.
    static func lookUp(_ key: ModelKey, in container: Container) -> String {
        let tag = key.tag.map { ServiceTag($0) }
        do {
            let probe =
                key.takesArgument
                ? try container.resolve(LookupProbe.self, tag: tag, arguments: 7)
                : try container.resolve(LookupProbe.self, tag: tag)
            return "#\(probe.id)"
        } catch let error as ResolutionError {
            return "\(error.kind) searched \(error.searched)"
        } catch {
            return "unexpected error \(error)"
        }
    }

    static func resolveAll(in container: Container) -> String {
        do {
            return try container.resolveAll(LookupProbe.self).map { "#\($0.id)" }.joined(separator: ", ")
        } catch {
            return "error \(error)"
        }
    }

    /// Fresh containers holding exactly the model's final state, with no history.
    static func rebuild(_ model: LookupModel) -> [Container?] {
        var built: [Container?] = []
        for node in model.nodes {
            guard node.isAlive else {
                built.append(nil)
                continue
            }
            built.append(node.parent.map { built[$0]!.makeChild(name: node.name) } ?? Container(name: node.name))
        }
        for (index, node) in model.nodes.enumerated() where node.isAlive {
            for link in node.links { built[index]!.collaborate(with: built[link]!) }
            for (key, registration) in node.registrations.sorted(by: { $0.value.sequence < $1.value.sequence }) {
                _ = register(key, id: registration.id, lifetime: .unique, in: built[index]!)
            }
        }
        return built
    }

    func report(_ failure: LookupFailure, step: Int) -> String {
        var lines = [
            "Lookup model mismatch: seed \(seed), step \(step)",
            "  operation: \(failure.operation)",
            "  expected:  \(failure.expected)",
            "  actual:    \(failure.actual)",
            "  last mutation before it: \(lastMutation)",
            "Tree at the failure:",
            model.summary,
        ]
        if let replay = failure.replay {
            let again = replay(model)
            lines.append(
                again == failure.expected
                    ? "Containers rebuilt from this state alone answer correctly: the failure depends on history (memoized lookups?)."
                    : "Containers rebuilt from this state alone answer \(again): the failure reproduces without history."
            )
        }
        return lines.joined(separator: "\n")
    }
}
