import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// The error injected faults throw.
private struct InjectedFault: Error, CustomStringConvertible {
    let site: String
    var description: String { "injected fault in \(site)" }
}

/// Decides, from a seeded generator, when a factory or block throws. Faults can be switched off.
private final class FaultPlan: Sendable {
    private let state: Guarded<(enabled: Bool, random: Reliability.SplitMix64)>

    init(seed: UInt64) { state = Guarded((true, Reliability.SplitMix64(seed: seed))) }

    func disable() { state.withLock { $0.enabled = false } }

    /// Throws `InjectedFault` with probability `percent` / 100 while faults are enabled.
    func maybeFail(_ site: String, percent: Int = 12) throws {
        let fails = state.withLock { state in state.enabled && state.random.chance(percent) }
        if fails { throw InjectedFault(site: site) }
    }
}

/// An instance that knows whether its `onResolved` blocks all ran: the last block marks it
/// complete. An instance handed out before that, or whose blocks ran twice, is a bug.
private final class FragileService: Sendable {
    let label: String
    let dependencies: [FragileService]
    private let completions = Guarded(0)
    /// Set by the property-injection blocks of the pair.
    let peer = Guarded<FragileService?>(nil)

    init(label: String, dependencies: [FragileService] = []) {
        self.label = label
        self.dependencies = dependencies
    }

    func markComplete() { completions.withLock { $0 += 1 } }
    var completionCount: Int { completions.current }
    var isComplete: Bool { completionCount == 1 }

    /// What is wrong with this instance or anything it references, if anything.
    func defects(seen: inout Set<ObjectIdentifier>) -> [String] {
        guard seen.insert(ObjectIdentifier(self)).inserted else { return [] }
        var found = isComplete ? [] : ["\(label) completed \(completionCount) times"]
        for dependency in dependencies { found += dependency.defects(seen: &seen) }
        if let peer = peer.current { found += peer.defects(seen: &seen) }
        return found
    }
}

/// Fault injection: factories and `onResolved` blocks throw at random points while other
/// threads resolve the same keys.
///
/// Backs: no half-initialised instance is ever visible (every instance returned has had its
/// blocks run exactly once, and so has everything it references), a failed resolve caches
/// nothing it built, and after the faults stop a clean resolve succeeds.
@Suite struct FaultInjectionTests {
    static let labels = ["leaf", "mid", "scoped", "weak", "pair0", "pair1", "top"]

    /// `starts[index]`, except that the pair, registered in the children, is not asked of the root.
    static func start(for label: String, _ index: Int, in starts: [Container]) -> Container {
        label.hasPrefix("pair") && index == 0 ? starts[1] : starts[index]
    }

    static let rounds = 80
    static let threads = 8
    static let resolvesPerThread = 120

    /// Each round builds fresh containers, starts eight threads together on the empty caches
    /// (so that faults hit while other threads wait for, or share a cycle with, the failing
    /// build), then switches faults off and checks that every key resolves cleanly.
    @Test func concurrentResolvesWithRandomFaultsNeverHandOutAPartialInstance() async throws {
        var returned = 0
        var faultsSeen = 0
        for round in 0..<Self.rounds {
            let outcome = try await Self.runRound(seed: UInt64(round) &* 0x1000_0001 &+ 0xFA17)
            returned += outcome.returned
            faultsSeen += outcome.faultsSeen
            guard outcome.isClean else { break }
        }
        print(
            "FaultInjectionTests: \(Self.rounds) rounds x \(Self.threads) threads: \(returned) instances returned, \(faultsSeen) injected faults surfaced"
        )
        #expect(faultsSeen > 100, "too few faults were injected for the test to prove anything")
        #expect(returned > 1_000, "too few resolves succeeded for the test to prove anything")
    }

    private static func runRound(seed: UInt64) async throws -> (returned: Int, faultsSeen: Int, isClean: Bool) {
        let faults = FaultPlan(seed: seed)
        let world = FaultWorld(faults: faults)
        defer { world.unlinkPairs() }
        let starts = [world.root, world.left, world.right]
        let results = Guarded((returned: [FragileService](), failures: [String](), faultsSeen: 0))
        let barrier = Reliability.Barrier(count: Self.threads)
        let finished = await runOnThreads(Self.threads, timeout: 60) { index in
            var random = Reliability.SplitMix64(seed: seed &+ UInt64(index) &* 0xBEEF)
            var returned: [FragileService] = []
            var failures: [String] = []
            var faultsSeen = 0
            barrier.arriveAndWait()
            for _ in 0..<Self.resolvesPerThread {
                let label = Self.labels[random.below(Self.labels.count)]
                let start = Self.start(for: label, random.below(starts.count), in: starts)
                do {
                    let service = try start.resolve(FragileService.self, tag: ServiceTag(label))
                    var seen: Set<ObjectIdentifier> = []
                    let defects = service.defects(seen: &seen)
                    if !defects.isEmpty {
                        failures.append("\(label) from \(start.name) was handed out with: \(defects)")
                    }
                    returned.append(service)
                } catch let error as ResolutionError {
                    if case .factoryFailed(let cause) = error.kind, cause is InjectedFault {
                        faultsSeen += 1
                    } else {
                        failures.append(
                            "\(label) from \(start.name) threw an error other than the injected fault:\n\(error)")
                    }
                } catch {
                    failures.append("\(label) from \(start.name) threw a non-ResolutionError: \(error)")
                }
            }
            results.withLock {
                $0.returned += returned
                $0.failures += failures
                $0.faultsSeen += faultsSeen
            }
        }
        guard finished else { return (0, 0, false) }  // runOnThreads recorded the hang
        let outcome = results.current
        for failure in outcome.failures.prefix(5) { Issue.record(Comment(rawValue: "round seed \(seed): \(failure)")) }
        #expect(outcome.failures.count == 0, "round seed \(seed)")

        // Every instance ever returned is still complete: no block ran twice on a cached instance.
        var seen: Set<ObjectIdentifier> = []
        let late = outcome.returned.flatMap { $0.defects(seen: &seen) }
        #expect(late.isEmpty, "round seed \(seed): defects found after the run: \(late.prefix(5))")

        // With faults off, every key resolves cleanly from every start, and caches hold
        // complete instances only.
        faults.disable()
        for index in starts.indices {
            for label in Self.labels {
                let start = Self.start(for: label, index, in: starts)
                let service = try start.resolve(FragileService.self, tag: ServiceTag(label))
                var seen: Set<ObjectIdentifier> = []
                #expect(service.defects(seen: &seen).isEmpty, "round seed \(seed): \(label) from \(start.name)")
            }
        }
        let first = try world.right.resolve(FragileService.self, tag: "pair1")
        let again = try world.right.resolve(FragileService.self, tag: "pair1")
        #expect(first === again)
        #expect(first.peer.current?.peer.current === first, "round seed \(seed): the pair is not one consistent pair")
        let isClean = outcome.failures.isEmpty && late.isEmpty
        return (outcome.returned.count, outcome.faultsSeen, isClean)
    }

    /// Publication: a singleton that was complete (its factory returned, no blocks, built
    /// from published instances) stays cached when a later factory of the same resolve fails.
    @Test func aFailedResolveKeepsTheCompleteSingletonsItBuilt() throws {
        let container = Container(name: "root")
        let leafBuilds = Guarded<[FragileService]>([])
        let failTop = Guarded(true)
        container.register(FragileService.self, tag: "leaf", lifetime: .singleton) { _ in
            let leaf = FragileService(label: "leaf")
            leafBuilds.withLock { $0.append(leaf) }
            return leaf
        }
        container.register(FragileService.self, tag: "top", lifetime: .singleton) { r in
            let leaf = try r.resolve(FragileService.self, tag: "leaf")
            if failTop.current { throw InjectedFault(site: "top factory") }
            return FragileService(label: "top", dependencies: [leaf])
        }
        #expect(throws: ResolutionError.self) { try container.resolve(FragileService.self, tag: "top") }
        let leaf = try container.resolve(FragileService.self, tag: "leaf")
        #expect(leafBuilds.current.count == 1, "the complete leaf built by the failed resolve was dropped")
        #expect(leaf === leafBuilds.current.first)
        failTop.withLock { $0 = false }
        #expect(try container.resolve(FragileService.self, tag: "top").dependencies.first === leaf)
    }

    @Test(arguments: [Lifetime.singleton, .weakSingleton, .perContainer, .eagerSingleton, .graph])
    func aThrowingOnResolvedBlockLeavesNoInstanceBehind(lifetime: Lifetime) throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let failBlock = Guarded(true)
        let built = Guarded(0)
        root.register(FragileService.self, lifetime: lifetime) { _ in
            built.withLock { $0 += 1 }
            return FragileService(label: "service")
        }
        .onResolved { _, _ in if failBlock.current { throw InjectedFault(site: "block") } }
        .onResolved { _, service in service.markComplete() }

        do {
            _ = try child.resolve(FragileService.self)
            Issue.record("the throwing block did not fail the resolve")
        } catch let error as ResolutionError {
            guard case .factoryFailed(let cause) = error.kind else {
                Issue.record("expected factoryFailed, got \(error.kind)")
                return
            }
            #expect(cause is InjectedFault)
        }
        failBlock.withLock { $0 = false }
        let service = try child.resolve(FragileService.self)
        #expect(service.isComplete)
        #expect(built.current == 2, "the instance whose block threw was reused")
    }
}

// MARK: - The registrations under fault

private struct FaultWorld {
    let root = Container(name: "root")
    let left: Container
    let right: Container
    /// Keeps complete weak singletons alive, so that the slot is exercised, not just rebuilt.
    let keeper = Guarded<[FragileService]>([])
    /// Every pair instance whose block set its peer (cached or not), for `unlinkPairs`.
    let linked = Guarded<[FragileService]>([])

    /// Breaks the peer <-> peer cycles the pair's blocks made, so that the round's instances go.
    func unlinkPairs() {
        for service in linked.current { service.peer.withLock { $0 = nil } }
    }

    init(faults: FaultPlan) {
        left = root.makeChild(name: "left")
        right = root.makeChild(name: "right")
        left.collaborateBothWays(with: right)

        register("leaf", .singleton, in: root, faults) { _ in [] }
        register("mid", .singleton, in: root, faults) { r in [try r.resolve(FragileService.self, tag: "leaf")] }
        register("scoped", .perContainer, in: root, faults) { r in [try r.resolve(FragileService.self, tag: "mid")] }
        let keeper = keeper
        register("weak", .weakSingleton, in: root, faults) { r in [try r.resolve(FragileService.self, tag: "leaf")] }
            .onResolved { _, service in keeper.withLock { $0.append(service) } }
        register("top", .graph, in: root, faults) { r in
            [try r.resolve(FragileService.self, tag: "scoped"), try r.resolve(FragileService.self, tag: "weak")]
        }
        // A property-injection cycle across two collaborating children.
        for (index, container) in [left, right].enumerated() {
            let other = "pair\(1 - index)"
            register("pair\(index)", .singleton, in: container, faults, peer: other) { _ in [] }
        }
    }

    /// A registration whose factory may fail before or after resolving its dependencies, and
    /// whose blocks may fail before the last one marks the instance complete.
    @discardableResult
    private func register(
        _ label: String, _ lifetime: Lifetime, in container: Container, _ faults: FaultPlan, peer: String? = nil,
        dependencies: @escaping @Sendable (Resolver) throws -> [FragileService]
    ) -> Registration<FragileService> {
        let linked = linked
        return container.register(FragileService.self, tag: ServiceTag(label), lifetime: lifetime) { r in
            try faults.maybeFail("\(label) factory, before its dependencies")
            let resolved = try dependencies(r)
            try faults.maybeFail("\(label) factory, after its dependencies")
            return FragileService(label: label, dependencies: resolved)
        }
        .onResolved { r, service in
            try faults.maybeFail("\(label) first block")
            if let peer {
                let other = try r.resolve(FragileService.self, tag: ServiceTag(peer))
                service.peer.withLock { $0 = other }
                linked.withLock { $0.append(service) }
            }
        }
        .onResolved { _, service in
            try faults.maybeFail("\(label) second block")
            // Blocks run dependencies first: everything this instance's factory used must be
            // complete already; if not, this instance stays incomplete and the test reports it.
            guard service.dependencies.allSatisfy(\.isComplete) else { return }
            service.markComplete()
        }
    }
}
