import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// What a lookup-model registration builds: the id tells which registration answered, and the
/// identity which cache slot (the extended runs compare identities with the model's slots).
private final class LookupProbe: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// Model-based randomized tests of the lookup order.
///
/// From fixed seeds, each run grows a random tree of containers, links them (self links,
/// duplicate links and cycles included), registers, replaces and removes registrations, drops
/// leaf containers, and after every change compares real lookups with `LookupModel`, a direct
/// transcription of the contract's `visit(N)` rules. Mutations are interleaved with lookups so
/// that the container's memoized lookups must be invalidated correctly, too.
///
/// The extended runs add what frees memory under the engine's feet: releasing any container the
/// test holds (a parent stays alive while a child holds it; a collaborator goes although it is
/// still linked), many short-lived collaborators that are registered in, linked, resolved
/// through and freed at once (so that addresses are reused), and registering again after a free.
/// They also compare identities: one instance per `singleton`/`eagerSingleton` registration,
/// one per (`perContainer` registration, container the resolve started from), none kept for
/// `unique`, `graph` and `weakSingleton`; and releases: a removed or replaced registration's
/// instances, a freed container's `perContainer` instances, and every instance of a freed
/// container's registrations (wherever cached) are gone as soon as that happens.
@Suite struct LookupModelTests {
    static let seeds: Range<UInt64> = 0..<200
    static let stepsPerSeed = 100
    // Failures stop after five seeds, each reporting its first mismatch, to keep the output short.

    @Test func everyLookupAnswersWithTheRegistrationTheReferenceModelPicks() throws {
        var lookups = 0
        let reports = LookupRun.runSeeds(Array(Self.seeds), steps: Self.stepsPerSeed) { lookups += $0.lookups }
        for report in reports { Issue.record(Comment(rawValue: report)) }
        print("LookupModelTests: \(lookups) lookups compared with the reference model over \(Self.seeds.count) seeds")
        #expect(lookups >= 10_000, "too few lookup cases generated: \(lookups)")
    }

    @Test func resolveAllReturnsTheModelsRegistrationsNearestFirst() throws {
        var checks = 0
        let reports = LookupRun.runSeeds(
            Self.seeds.prefix(100).map { $0 &+ 1_000_003 }, steps: 40, checkingResolveAll: true
        ) { checks += $0.resolveAllChecks }
        for report in reports { Issue.record(Comment(rawValue: report)) }
        #expect(checks >= 1_000, "too few resolveAll cases generated: \(checks)")
    }

    @Test func lookupsAndInstancesFollowTheModelWhileContainersAreFreedAndShortLivedOnesComeAndGo() throws {
        var totals = LookupRun.Tally()
        let reports = LookupRun.runSeeds(Self.seeds.prefix(150).map { $0 &+ 2_000_003 }, steps: 150, extended: true) {
            totals.add($0.tally)
        }
        for report in reports { Issue.record(Comment(rawValue: report)) }
        print("LookupModelTests (extended): \(totals)")
        guard reports.isEmpty else { return }  // a failing seed stops early: its counts say nothing
        #expect(totals.lookups >= 5_000, "too few lookup cases generated: \(totals.lookups)")
        #expect(totals.identityChecks >= 1_000, "too few identity checks: \(totals.identityChecks)")
        #expect(totals.perContainerChecks >= 300, "too few perContainer identity checks: \(totals.perContainerChecks)")
        #expect(totals.freedContainers >= 2_000, "too few containers freed: \(totals.freedContainers)")
        #expect(totals.releaseChecks >= 300, "too few release checks: \(totals.releaseChecks)")
    }

    @Test func twoThreadsRunningTheExtendedModelOnDisjointContainersBothMatchIt() async throws {
        // Meant for ThreadSanitizer as much as for the comparisons: the two threads share no
        // container, so any race it reports is in state the engine shares between containers.
        let reports = Guarded<[String]>([])
        let tallies = Guarded(LookupRun.Tally())
        let barrier = Reliability.Barrier(count: 2)
        let finished = await runOnThreads(2, timeout: 300) { thread in
            barrier.arriveAndWait()
            var tally = LookupRun.Tally()
            let failed = LookupRun.runSeeds(
                Self.seeds.prefix(60).map { $0 &* 2 &+ UInt64(thread) &+ 3_000_017 }, steps: 150, extended: true,
                stopAfter: 3
            ) { tally.add($0.tally) }
            reports.withLock { $0 += failed.map { "thread \(thread): " + $0 } }
            tallies.withLock { $0.add(tally) }
        }
        guard finished else { return }  // runOnThreads recorded the hang
        for report in reports.current { Issue.record(Comment(rawValue: report)) }
        let totals = tallies.current
        print("LookupModelTests (extended, 2 threads): \(totals)")
        guard reports.current.isEmpty else { return }  // a failing seed stops early: its counts say nothing
        #expect(totals.lookups >= 4_000, "too few lookup cases generated: \(totals.lookups)")
    }

    @Test func theModelItselfFollowsTheContractOnAHandWrittenTree() throws {
        // Guards the reference model: root <- a <- b, b links to x (a root child), x links to b.
        var model = LookupModel()
        let (root, a, b, x) = model.addChainAndX(xUnderRoot: true)
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

    @Test func theModelKeepsAReleasedParentAliveWhileAChildIsHeld() throws {
        // Guards the extended model: root <- a <- b; x links to a. Releasing a keeps it (b holds
        // it); releasing b then frees both, and x's link goes with a.
        var model = LookupModel()
        let (root, a, b, x) = model.addChainAndX(xUnderRoot: false)
        model.link(x, to: a)
        let releasingA = model.release(a)
        #expect(releasingA.isEmpty)
        #expect(model.walkOrder(from: x) == [x, a, root])
        let releasingB = model.release(b)
        #expect(releasingB == [b, a])
        #expect(model.walkOrder(from: x) == [x])
        let releasingRoot = model.release(root)
        #expect(releasingRoot == [root])
        #expect(model.nodes.map(\.isAlive) == [false, false, false, true])
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
    /// Adds a hand-written tree, for the tests of the model itself: root <- a <- b, and x, a
    /// child of root when `xUnderRoot`, else a root of its own.
    mutating func addChainAndX(xUnderRoot: Bool) -> (root: Int, a: Int, b: Int, x: Int) {
        let root = addContainer(parent: nil)
        let a = addContainer(parent: root)
        let b = addContainer(parent: a)
        return (root, a, b, addContainer(parent: xUnderRoot ? root : nil))
    }

    struct Node {
        let name: String
        let parent: Int?
        var isAlive = true
        /// Whether the test holds the container; a released one lives on while a child holds it.
        var isHeld = true
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

    /// The test lets go of `container`: it and every ancestor that no held container keeps alive
    /// any more are freed (a child holds its parent; links hold nothing). Returns the freed
    /// containers, deepest first.
    mutating func release(_ container: Int) -> [Int] {
        nodes[container].isHeld = false
        // A child is created after its parent: one pass from the newest node finds who lives.
        var keptByChild = Array(repeating: false, count: nodes.count)
        var freed: [Int] = []
        for index in nodes.indices.reversed() where nodes[index].isAlive {
            if nodes[index].isHeld || keptByChild[index] {
                if let parent = nodes[index].parent { keptByChild[parent] = true }
            } else {
                freed.append(index)
            }
        }
        for index in freed { drop(index) }
        return freed
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
            let held = node.isHeld ? "" : " (released, kept by a child)"
            return "  \(node.name)\(held) parent: \(parent); links: [\(links)]; registrations: [\(registrations)]"
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
    /// What a run compared, summed over runs by the tests.
    struct Tally: Sendable, CustomStringConvertible {
        var lookups = 0
        var resolveAllChecks = 0
        var identityChecks = 0
        var perContainerChecks = 0
        var releaseChecks = 0
        var freedContainers = 0
        var shortLivedContainers = 0

        mutating func add(_ other: Tally) {
            lookups += other.lookups
            resolveAllChecks += other.resolveAllChecks
            identityChecks += other.identityChecks
            perContainerChecks += other.perContainerChecks
            releaseChecks += other.releaseChecks
            freedContainers += other.freedContainers
            shortLivedContainers += other.shortLivedContainers
        }

        var description: String {
            "\(lookups) lookups, \(identityChecks) identity checks (\(perContainerChecks) perContainer),"
                + " \(releaseChecks) release checks, \(freedContainers) containers freed"
                + " (\(shortLivedContainers) short-lived)"
        }
    }

    /// A cache slot of the model: a registration, and for `perContainer` the container the
    /// top-level resolve started from (`nil`: the registration's one instance).
    struct Slot: Hashable {
        let id: Int
        let start: Int?
    }

    /// A weak reference, to watch an object without keeping it alive.
    struct Weak<Object: AnyObject> {
        weak var object: Object?
    }

    let seed: UInt64
    /// Whether the run makes the extended operations and checks (see the suite's comment).
    let extended: Bool
    var random: Reliability.SplitMix64
    var model = LookupModel()
    /// The containers the test holds, by model index; `nil` once released.
    var containers: [Container?] = []
    /// Every container created, by model index, held weakly.
    var watched: [Weak<Container>] = []
    /// Registration handles by id, with their key and container, including stale ones.
    var handles: [(id: Int, key: ModelKey, container: Int, registration: Registration<LookupProbe>)] = []
    /// Every registration's lifetime and owner, by id.
    var registrations: [Int: (lifetime: Lifetime, owner: Int)] = [:]
    /// The instances of the cached lifetimes seen so far, held weakly: their containers keep them.
    var slots: [Slot: Weak<LookupProbe>] = [:]
    var nextID = 1
    var tally = Tally()
    /// The mutations so far; the report prints the last few.
    var history: [String] = []
    var lastMutation = "none" {
        didSet { history.append(lastMutation) }
    }

    var lookups: Int { tally.lookups }
    var resolveAllChecks: Int { tally.resolveAllChecks }

    static let tags: [String?] = [nil, "a", "b", "c"]
    static let lifetimes: [Lifetime] = [.unique, .graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer]

    init(seed: UInt64, extended: Bool = false) {
        self.seed = seed
        self.extended = extended
        random = Reliability.SplitMix64(seed: seed)
        let rootIndex = model.addContainer(parent: nil)
        adopt(Container(name: model.nodes[rootIndex].name))
        for _ in 0..<(2 + random.below(6)) { _ = addContainer() }
    }

    /// The model's live containers: held by the test, or by a child the test holds.
    var liveIndices: [Int] { model.nodes.indices.filter { model.nodes[$0].isAlive } }

    /// The real container at a model index, whether the test or a child holds it.
    func handle(_ index: Int) -> Container? { containers[index] ?? watched[index].object }

    mutating func adopt(_ container: Container) {
        containers.append(container)
        watched.append(Weak(object: container))
    }

    mutating func randomLive() -> Int {
        let live = liveIndices
        return live[random.below(live.count)]
    }

    mutating func randomKey() -> ModelKey {
        ModelKey(tag: Self.tags[random.below(Self.tags.count)], takesArgument: random.chance(30))
    }

    mutating func randomLifetime(perContainerPercent: Int) -> Lifetime {
        if extended && random.chance(perContainerPercent) { return .perContainer }
        return Self.lifetimes[random.below(Self.lifetimes.count)]
    }

    /// A new container: a child of a random live one, or (extended runs, one in five) a new root.
    mutating func addContainer() -> LookupFailure? {
        let parent: Int? = extended && random.chance(20) ? nil : randomLive()
        var made = Container(name: "c\(model.nodes.count)")
        if let parent {
            guard let parentContainer = handle(parent) else { return freedTooEarly(parent) }
            made = parentContainer.makeChild(name: made.name)
        }
        _ = model.addContainer(parent: parent)
        adopt(made)
        return nil
    }

    /// Runs `steps` steps from each of `seeds` (a run each), until `stopAfter` seeds have
    /// failed; calls `finished` with every run, and returns the failing seeds' reports.
    static func runSeeds(
        _ seeds: [UInt64], steps: Int, extended: Bool = false, checkingResolveAll: Bool = false,
        stopAfter: Int = 5, _ finished: (LookupRun) -> Void
    ) -> [String] {
        var reports: [String] = []
        for seed in seeds where reports.count < stopAfter {
            var run = LookupRun(seed: seed, extended: extended)
            if let report = run.firstFailure(inSteps: steps, checkingResolveAll: checkingResolveAll) {
                reports.append(report)
            }
            finished(run)
        }
        return reports
    }

    /// Runs up to `count` steps; the report of the first that fails, if one does.
    mutating func firstFailure(inSteps count: Int, checkingResolveAll: Bool = false) -> String? {
        for step in 0..<count {
            if let failure = self.step(checkingResolveAll: checkingResolveAll) { return report(failure, step: step) }
        }
        return nil
    }

    /// A mix of operations: a roll below 100 runs the first whose `below` it is under (given
    /// whether a plain run's comparisons check resolveAll).
    typealias Mix = [(below: Int, operation: @Sendable (inout LookupRun, _ checkingResolveAll: Bool) -> LookupFailure?)]

    /// The plain runs' mix: mostly lookups (or resolveAll), a few mutations.
    static let plainMix: Mix = [
        (20, { run, _ in run.registerRandomly() }), (28, { run, _ in run.removeRandomly() }),
        (36, { run, _ in run.linkRandomly() }), (39, { run, _ in run.addContainerNoted() }),
        (41, { run, _ in run.dropALeaf() }),
        (100, { run, resolveAll in resolveAll ? run.compareResolveAll() : run.compareLookup() }),
    ]

    /// The extended runs' mix: fewer plain lookups, and frees of every kind.
    static let extendedMix: Mix = [
        (16, { run, _ in run.registerRandomly() }), (22, { run, _ in run.removeRandomly() }),
        (30, { run, _ in run.linkRandomly() }), (34, { run, _ in run.addContainerNoted() }),
        (38, { run, _ in run.releaseRandomly() }), (46, { run, _ in run.shortLivedCollaborators() }),
        (100, { run, _ in run.compareLookup() }),
    ]

    /// One random operation of the run's mix; a lookup or resolveAll (plain runs only)
    /// compares with the model.
    mutating func step(checkingResolveAll: Bool = false) -> LookupFailure? {
        let roll = random.below(100)
        let mix = extended ? Self.extendedMix : Self.plainMix
        guard let operation = mix.first(where: { roll < $0.below })?.operation else { return nil }
        return operation(&self, checkingResolveAll)
    }

    /// `addContainer()`, noted as the last mutation (for a failure's report).
    mutating func addContainerNoted() -> LookupFailure? {
        lastMutation = "add c\(model.nodes.count)"
        return addContainer()
    }

    mutating func registerRandomly() -> LookupFailure? {
        let container = randomLive()
        let key = randomKey()
        let id = nextID
        nextID += 1
        let lifetime = randomLifetime(perContainerPercent: 35)
        return register(key, id: id, lifetime: lifetime, in: container)
    }

    /// Registers in the container at `index` (real and model); in extended runs, checks that a
    /// replaced registration's instances were released. A handle kept in `handles` keeps the
    /// registration's memory alive, so short-lived containers mostly keep none.
    mutating func register(
        _ key: ModelKey, id: Int, lifetime: Lifetime, in index: Int, keepingHandle: Bool = true
    ) -> LookupFailure? {
        guard let container = handle(index) else { return freedTooEarly(index) }
        let replaced = model.nodes[index].registrations[key]?.id
        let registration = Self.register(key, id: id, lifetime: lifetime, in: container)
        model.register(key, id: id, in: index)
        if keepingHandle { handles.append((id, key, index, registration)) }
        registrations[id] = (lifetime, index)
        lastMutation = "register \(key) = #\(id) (\(lifetime)) in \(model.nodes[index].name)"
        guard extended, let replaced else { return nil }
        return expectReleased(registration: replaced, by: lastMutation)
    }

    mutating func removeRandomly() -> LookupFailure? {
        guard !handles.isEmpty else { return nil }
        let handle = handles[random.below(handles.count)]
        guard model.nodes[handle.container].isAlive, let container = self.handle(handle.container) else { return nil }
        container.remove(handle.registration)
        lastMutation = "remove #\(handle.id) (\(handle.key)) from \(model.nodes[handle.container].name)"
        // Removing a stale handle (replaced or already removed) must change nothing.
        guard model.nodes[handle.container].registrations[handle.key]?.id == handle.id else { return nil }
        model.nodes[handle.container].registrations[handle.key] = nil
        return extended ? expectReleased(registration: handle.id, by: lastMutation) : nil
    }

    mutating func linkRandomly() -> LookupFailure? {
        let from = randomLive()
        let to = randomLive()
        return link(from, to: to)
    }

    /// Links the containers at `from` and `to` (real and model).
    mutating func link(_ from: Int, to: Int) -> LookupFailure? {
        guard let fromContainer = handle(from) else { return freedTooEarly(from) }
        guard let toContainer = handle(to) else { return freedTooEarly(to) }
        fromContainer.collaborate(with: toContainer)
        model.link(from, to: to)
        lastMutation = "\(model.nodes[from].name).collaborate(with: \(model.nodes[to].name))"
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
        containers[leaf] = nil
        model.drop(leaf)
        lastMutation = "drop \(model.nodes[leaf].name)"
        guard watched[leaf].object == nil else {
            return LookupFailure(
                operation: "drop \(model.nodes[leaf].name)", expected: "the container is freed",
                actual: "it is still alive", replay: nil)
        }
        return nil
    }

    /// Extended runs: the test lets go of any container it holds (while it holds another).
    mutating func releaseRandomly() -> LookupFailure? {
        let held = liveIndices.filter { model.nodes[$0].isHeld }
        guard held.count > 1 else { return nil }
        return release(held[random.below(held.count)])
    }

    /// Lets go of the container at `index` and checks that exactly what the model frees is freed,
    /// with the instances that went with it.
    mutating func release(_ index: Int) -> LookupFailure? {
        containers[index] = nil
        let freed = model.release(index)
        let names = freed.map { model.nodes[$0].name }
        lastMutation =
            "release \(model.nodes[index].name)" + (freed.isEmpty ? " (a child keeps it)" : ", freeing \(names)")
        tally.freedContainers += freed.count
        if freed.isEmpty, watched[index].object == nil {
            return LookupFailure(
                operation: lastMutation, expected: "\(model.nodes[index].name) lives on: a child holds it",
                actual: "it was freed", replay: nil)
        }
        for gone in freed where watched[gone].object != nil {
            return LookupFailure(
                operation: lastMutation, expected: "\(model.nodes[gone].name) is freed", actual: "it is still alive",
                replay: nil)
        }
        let freedSet = Set(freed)
        return expectReleased(
            where: { slot, owner in
                freedSet.contains(owner) || slot.start.map(freedSet.contains) == true
            }, by: lastMutation)
    }

    /// Extended runs: one to four short-lived containers (half of them new roots), each with a
    /// registration, linked from a live container, resolved through, and released at once.
    mutating func shortLivedCollaborators() -> LookupFailure? {
        // Mostly one container and one key for the whole burst, as a session that comes and goes.
        let sameFromAndKey = random.chance(70)
        var from = randomLive()
        var key = randomKey()
        for _ in 0..<(1 + random.below(4)) {
            if !sameFromAndKey {
                from = randomLive()
                key = randomKey()
            }
            let index = model.nodes.count
            let asRoot = random.chance(50)
            if let failure = asRoot ? addRoot() : addContainer() { return failure }
            tally.shortLivedContainers += 1
            let id = nextID
            nextID += 1
            let lifetime = randomLifetime(perContainerPercent: 50)
            if let failure = register(key, id: id, lifetime: lifetime, in: index, keepingHandle: random.chance(20)) {
                return failure
            }
            let registered = lastMutation
            // No local may hold a container here: the release below must free it.
            if let failure = link(from, to: index) { return failure }
            history.removeLast(2)  // the registration and the link, told again as one
            lastMutation =
                "short-lived \(model.nodes[index].name): \(registered), linked from \(model.nodes[from].name)"
            if let failure = compare(key, from: from) { return failure }
            if random.chance(30), let failure = compare(key, from: index) { return failure }
            if let failure = release(index) { return failure }
        }
        return nil
    }

    mutating func addRoot() -> LookupFailure? {
        let index = model.addContainer(parent: nil)
        adopt(Container(name: model.nodes[index].name))
        return nil
    }

    mutating func compareLookup() -> LookupFailure? {
        let start = randomLive()
        let key = randomKey()
        return compare(key, from: start)
    }

    /// Resolves `key` from the container at `start` and compares the answer with the model; in
    /// extended runs, the instance's identity with the model's slot too.
    mutating func compare(_ key: ModelKey, from start: Int) -> LookupFailure? {
        tally.lookups += 1
        guard let container = handle(start) else { return freedTooEarly(start) }
        let expected = Self.expectation(model, key, from: start)
        var probe: LookupProbe?
        let actual = Self.resolve(key, in: container, into: &probe)
        let operation = "resolve \(key) from \(model.nodes[start].name)"
        guard expected == actual else {
            return LookupFailure(
                operation: operation, expected: expected, actual: actual,
                replay: { model in
                    Self.lookUp(key, in: Self.rebuild(model)[start]!)
                })
        }
        guard extended, let id = probe?.id, let registration = registrations[id] else { return nil }
        let (lifetime, owner) = registration
        tally.identityChecks += 1
        let owned = "#\(id) (\(lifetime), registered in \(model.nodes[owner].name))"
        switch lifetime {
        case .singleton, .eagerSingleton, .perContainer:
            let slot = Slot(id: id, start: lifetime == .perContainer ? start : nil)
            let place =
                lifetime == .perContainer
                ? "the instance of \(owned) for \(model.nodes[start].name)" : "the instance of \(owned)"
            if lifetime == .perContainer { tally.perContainerChecks += 1 }
            guard let cached = slots[slot] else {
                slots[slot] = Weak(object: probe)
                return nil
            }
            guard let earlier = cached.object else {
                return LookupFailure(
                    operation: operation, expected: "\(place), as before",
                    actual: "the earlier instance was freed while its registration and container live", replay: nil)
            }
            guard earlier === probe else {
                return LookupFailure(
                    operation: operation, expected: "\(place), as before", actual: "a second instance", replay: nil)
            }
            return nil
        case .unique, .graph, .weakSingleton:
            // Nothing but the caller keeps these: dropped, the instance is freed.
            let watch = Weak(object: probe)
            probe = nil
            guard watch.object == nil else {
                return LookupFailure(
                    operation: operation, expected: "the instance of \(owned) is freed once the caller drops it",
                    actual: "something keeps it alive", replay: nil)
            }
            return nil
        }
    }

    /// Checks that the instances of `registration` (gone: removed, replaced, or freed with its
    /// container) were released, wherever they were cached.
    mutating func expectReleased(registration: Int, by cause: String) -> LookupFailure? {
        expectReleased(where: { slot, _ in slot.id == registration }, by: cause)
    }

    /// Checks that the instances in the slots `isGone` selects (given the slot and its
    /// registration's owner) were released, and forgets those slots.
    mutating func expectReleased(where isGone: (Slot, Int) -> Bool, by cause: String) -> LookupFailure? {
        var failure: LookupFailure?
        for (slot, instance) in slots {
            guard let registration = registrations[slot.id], isGone(slot, registration.owner) else { continue }
            let (lifetime, owner) = registration
            slots[slot] = nil
            tally.releaseChecks += 1
            guard failure == nil, instance.object != nil else { continue }
            let place = slot.start.map { " cached for \(model.nodes[$0].name)" } ?? ""
            failure = LookupFailure(
                operation: cause,
                expected:
                    "the \(lifetime) instance of #\(slot.id) (registered in \(model.nodes[owner].name))\(place) is released",
                actual: "it is still alive", replay: nil)
        }
        return failure
    }

    /// A container the model says is alive (a child holds it) was freed.
    func freedTooEarly(_ index: Int) -> LookupFailure {
        LookupFailure(
            operation: "use \(model.nodes[index].name) after: \(lastMutation)",
            expected: "\(model.nodes[index].name) is alive", actual: "it was freed", replay: nil)
    }

    mutating func compareResolveAll() -> LookupFailure? {
        let start = randomLive()
        tally.resolveAllChecks += 1
        let expected = model.resolveAllIDs(from: start).map { "#\($0)" }.joined(separator: ", ")
        guard let container = handle(start) else { return freedTooEarly(start) }
        let actual = Self.resolveAll(in: container)
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
        var probe: LookupProbe?
        return resolve(key, in: container, into: &probe)
    }

    /// What the container gives, in the same form as `expectation`; the instance in `probe`.
    static func resolve(_ key: ModelKey, in container: Container, into probe: inout LookupProbe?) -> String {
        let tag = key.tag.map { ServiceTag($0) }
        do {
            probe =
                key.takesArgument
                ? try container.resolve(LookupProbe.self, tag: tag, arguments: 7)
                : try container.resolve(LookupProbe.self, tag: tag)
            return "#\(probe?.id ?? 0)"
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
            "Lookup model mismatch\(extended ? " (extended run)" : ""): seed \(seed), step \(step)",
            "  operation: \(failure.operation)",
            "  expected:  \(failure.expected)",
            "  actual:    \(failure.actual)",
            "  last mutation before it: \(lastMutation)",
            "  the ten before: " + history.dropLast().suffix(10).joined(separator: "; "),
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
