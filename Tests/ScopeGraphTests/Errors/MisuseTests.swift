import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

private final class Gadget: Sendable {
    let name: String
    init(_ name: String = "gadget") { self.name = name }
}

/// Runs a closure when it is freed: a deinit that calls back into the container.
private final class DeinitHook: Sendable {
    private let hook: @Sendable () -> Void
    init(_ hook: @escaping @Sendable () -> Void) { self.hook = hook }
    deinit { hook() }
}

private protocol Unrelated: Sendable {}

/// Misuse: every public entry point with hostile input, re-entrant calls and calls racing
/// with resolves. Each either works or throws a clear `ResolutionError`; nothing crashes, and
/// whatever could hang runs under a watchdog.
///
/// Backs "no deadlock" and "no crash" for the cases users actually hit: registering or
/// removing from inside a factory, removing what another thread is building, `removeAll`
/// during resolves, a collaborator freed while others resolve through it.
@Suite struct MisuseTests {
    /// Runs `body` on a thread under a watchdog; records a hang and returns `nil` if it does not finish.
    private func bounded<T: Sendable>(
        _ what: String, timeout: TimeInterval = 30, _ body: @escaping @Sendable () throws -> T
    ) throws -> T? {
        guard let result = StartedThread(body).result(timeout: timeout) else {
            Issue.record("\(what) hung (watchdog fired after \(timeout) s)")
            return nil
        }
        return try result.get()
    }

    /// Waits until `condition` holds, at most `timeout` seconds; false when it never did.
    private static func poll(timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    private func kind(of error: any Error) -> String {
        (error as? ResolutionError).map { "\($0.kind)" } ?? "not a ResolutionError: \(error)"
    }

    // MARK: Hostile names, tags, links and arguments

    @Test func emptyNamesAndEmptyTagsWork() throws {
        let root = Container(name: "")
        let child = root.makeChild(name: "")
        root.register(Gadget.self, tag: ServiceTag("")) { _ in Gadget("empty tag") }
        #expect(try child.resolve(Gadget.self, tag: ServiceTag("")).name == "empty tag")
        let error = try #require(throws: ResolutionError.self) { try child.resolve(Gadget.self) }
        #expect(error.searched == ["", ""])
        #expect(!error.description.isEmpty)
        #expect(!"\(root)".isEmpty)
    }

    @Test func selfLinksAndDuplicateLinksAreIgnored() throws {
        let a = Container(name: "a")
        let b = Container(name: "b")
        a.collaborate(with: a)
        a.collaborate(with: b, b)
        a.collaborate(with: [b, a, b])
        #expect(a.collaborators.count == 1)
        #expect(a.collaborators.first === b)
        let error = try #require(throws: ResolutionError.self) { try a.resolve(Gadget.self) }
        #expect(error.searched == ["a", "b"])
    }

    @Test func lookupsThroughARingOfLinksTerminate() throws {
        let containers = (0..<6).map { Container(name: "ring\($0)") }
        for (index, container) in containers.enumerated() {
            container.collaborate(with: containers[(index + 1) % 6], containers[(index + 5) % 6])
        }
        let searched = try bounded("a lookup through a ring of links") {
            containers.map { container -> [String] in
                do {
                    _ = try container.resolve(Gadget.self)
                    return ["resolved?"]
                } catch let error as ResolutionError {
                    return error.searched
                } catch {
                    return ["\(error)"]
                }
            }
        }
        for names in searched ?? [] {
            #expect(names.count == 6 && Set(names).count == 6, "searched \(names)")
        }
    }

    @Test func wrongArgumentTypesThrowArgumentMismatch() throws {
        let container = Container(name: "root")
        container.register(Gadget.self) { (_, name: String) in Gadget(name) }
        #expect(try container.resolve(Gadget.self, tag: nil, arguments: "x").name == "x")
        for attempt in [
            { try container.resolve(Gadget.self, tag: nil, arguments: 1) },
            { try container.resolve(Gadget.self) },
            { try container.resolve(Gadget.self, tag: nil, arguments: "x", 1) },
        ] as [() throws -> Gadget] {
            let error = try #require(throws: ResolutionError.self) { try attempt() }
            #expect(kind(of: error) == "argumentMismatch")
        }
    }

    @Test func forwardingToATypeTheInstanceIsNotThrowsTypeMismatch() throws {
        let container = Container(name: "root")
        container.register(Gadget.self) { _ in Gadget() }.implements(Unrelated.self)
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Unrelated.self) }
        #expect(kind(of: error) == "typeMismatch")
    }

    /// A `Registration` handle does not keep its container alive; `implements`, `onResolved`
    /// and `remove` through a handle whose container is gone change nothing in any live
    /// container, and once the handle goes too, nothing keeps the container's singleton.
    @Test func registrationHandlesOutlivingTheirContainerAreHarmless() throws {
        let survivor = Container(name: "survivor")
        survivor.register(Gadget.self) { _ in Gadget("survivor's") }
        var container: Container? = Container(name: "gone")
        var registration: Registration<Gadget>? = container!.register(Gadget.self, lifetime: .singleton) { _ in
            Gadget("gone's")
        }
        var singleton: Gadget? = try container!.resolve(Gadget.self)
        weak let watchedSingleton = singleton
        weak let watchedContainer = container
        singleton = nil
        container = nil
        #expect(watchedContainer == nil, "the handle kept its container alive")

        let blockRuns = Counter()
        registration?.implements(Gadget.self, tag: "alias").onResolved { _, _ in blockRuns.increment() }
        if let registration { survivor.remove(registration) }
        #expect(try survivor.resolveIfRegistered(Gadget.self, tag: "alias") == nil, "a stale implements added a key")
        #expect(try survivor.resolve(Gadget.self).name == "survivor's", "a stale remove removed another registration")
        #expect(blockRuns.value == 0)
        registration = nil
        #expect(watchedSingleton == nil, "the gone container's singleton is still alive")
    }

    @Test func removingThroughAContainerThatDoesNotOwnTheRegistrationChangesNothing() throws {
        let owner = Container(name: "owner")
        let child = owner.makeChild(name: "child")
        let registration = owner.register(Gadget.self) { _ in Gadget() }
        child.remove(registration)
        #expect(try child.resolve(Gadget.self).name == "gadget")
    }

    // MARK: Re-entrant calls from inside factories

    @Test func aFactoryMayRegisterAndResolveAnotherKeyWhileItRuns() throws {
        let container = Container(name: "root")
        container.register(Gadget.self, lifetime: .singleton) { [unowned container] r in
            container.register(Gadget.self, tag: "late") { _ in Gadget("late") }
            let feature = container.makeChild(name: "feature")
            feature.register(Gadget.self, tag: "feature") { _ in Gadget("feature") }
            let late = try r.resolve(Gadget.self, tag: "late")
            let fromFeature = try feature.resolve(Gadget.self, tag: "feature")
            return Gadget("\(late.name)+\(fromFeature.name)")
        }
        let name = try bounded("registering from inside a factory") { try container.resolve(Gadget.self).name }
        #expect(name == "late+feature")
    }

    @Test func aFactoryThatReplacesItsOwnRegistrationDoesNotHang() throws {
        let container = Container(name: "root")
        container.register(Gadget.self, lifetime: .singleton) { [unowned container] _ in
            container.register(Gadget.self, lifetime: .singleton) { _ in Gadget("replacement") }
            return Gadget("original")
        }
        let names = try bounded("replacing a registration from its own factory") {
            [try container.resolve(Gadget.self).name, try container.resolve(Gadget.self).name]
        }
        #expect(names == ["original", "replacement"])
    }

    @Test func aFactoryThatRemovesItsOwnRegistrationDoesNotHang() throws {
        let container = Container(name: "root")
        let (_, release) = container.registerRemovingItself(Gadget.self, lifetime: .singleton) {
            Gadget("built while removed")
        }
        defer { release() }
        let outcome = try bounded("removing a registration from its own factory") { () -> [String] in
            let first = try container.resolve(Gadget.self).name
            let second = try container.resolveIfRegistered(Gadget.self)?.name ?? "not registered"
            return [first, second]
        }
        #expect(outcome == ["built while removed", "not registered"])
    }

    /// `remove` while a factory runs on one thread and a second resolve of the key has started
    /// on another (the Concurrency article, "What remove does"): `remove` returns without waiting
    /// for the factory, and a resolve that starts after it finds nothing. The building resolve
    /// gets its instance, which is never published (the registration is retired), so the
    /// resolve that started before `remove` either builds one of its own from the old
    /// registration (it found it, and waited for the slot) or finds nothing (it looked after
    /// `remove`). Which of the two depends on when its lookup ran; both are exact outcomes,
    /// and the scenario runs several times so both are likely to be seen.
    @Test func removingARegistrationWhileAnotherThreadRunsItsFactory() throws {
        for _ in 0..<5 {
            let container = Container(name: "root")
            let entered = DispatchSemaphore(value: 0)
            let proceed = DispatchSemaphore(value: 0)
            let runs = Counter()
            let registration = container.register(Gadget.self, lifetime: .singleton) { _ in
                if runs.increment() == 1 {
                    entered.signal()
                    _ = proceed.wait(timeout: .now() + 10)
                }
                return Gadget("in flight")
            }
            let builder = StartedThread { try container.resolve(Gadget.self) }
            #expect(entered.wait(timeout: .now() + 10) == .success, "the factory never started")
            // The second resolve starts before `remove`; the slot it asks for is being built.
            let waiterStarting = DispatchSemaphore(value: 0)
            let waiter = StartedThread { () -> Gadget? in
                waiterStarting.signal()
                return try container.resolveIfRegistered(Gadget.self)
            }
            #expect(waiterStarting.wait(timeout: .now() + 10) == .success, "the waiting resolve never started")
            container.remove(registration)
            // `remove` returned while the factory still runs: a resolve starting now finds nothing.
            #expect(try container.resolveIfRegistered(Gadget.self) == nil)
            proceed.signal()
            let built = try #require(try builder.value(), "the building resolve hung")
            let waited = try #require(try waiter.value(), "the waiting resolve hung")
            #expect(built.name == "in flight")
            if let waited {
                #expect(waited !== built, "the retired registration published the builder's instance")
                #expect(waited.name == "in flight")
                #expect(runs.value == 2)
            } else {
                #expect(runs.value == 1)
            }
            #expect(try container.resolveIfRegistered(Gadget.self) == nil)
        }
    }

    @Test func aResolverKeptAfterItsResolveReturnedStillWorksOnAnyThread() throws {
        let container = Container(name: "root")
        let kept = Guarded<Resolver?>(nil)
        defer { kept.withLock { $0 = nil } }  // the resolver holds the container, whose factory holds `kept`
        container.register(Gadget.self, tag: "dependency") { _ in Gadget("dependency") }
        container.register(Gadget.self) { r in
            kept.withLock { $0 = r }
            return Gadget()
        }
        _ = try container.resolve(Gadget.self)
        let resolver = try #require(kept.current)
        #expect(try resolver.resolve(Gadget.self, tag: "dependency").name == "dependency")
        let elsewhere = try bounded("a kept resolver used on another thread") {
            try resolver.resolve(Gadget.self, tag: "dependency").name
        }
        #expect(elsewhere == "dependency")
    }

    @Test func aDeinitThatResolvesAndRegistersDuringRemovalDoesNotDeadlock() throws {
        let container = Container(name: "root")
        let child = container.makeChild(name: "child")
        let observed = Guarded<[String]>([])
        let hooked = { @Sendable (label: String) in
            DeinitHook {
                let name = (try? container.resolve(Gadget.self, tag: "witness").name) ?? "nothing"
                container.register(Gadget.self, tag: ServiceTag("late-\(label)")) { _ in Gadget() }
                observed.withLock { $0.append("\(label) saw \(name)") }
            }
        }
        container.register(Gadget.self, tag: "witness") { _ in Gadget("witness") }
        let removed = container.register(DeinitHook.self, tag: "removed", lifetime: .singleton) { _ in hooked("removed")
        }
        container.register(DeinitHook.self, tag: "replaced", lifetime: .singleton) { _ in hooked("replaced") }
        child.register(DeinitHook.self, tag: "cleared", lifetime: .singleton) { _ in hooked("cleared") }
        child.register(Gadget.self, tag: "witness") { _ in Gadget("child witness") }
        let outcome = try bounded("deinits that call back into the container") { () -> [String] in
            _ = try container.resolve(DeinitHook.self, tag: "removed")
            _ = try container.resolve(DeinitHook.self, tag: "replaced")
            _ = try child.resolve(DeinitHook.self, tag: "cleared")
            container.remove(removed)
            container.register(DeinitHook.self, tag: "replaced", lifetime: .singleton) { _ in DeinitHook {} }
            child.removeAll()
            return observed.current
        }
        #expect(outcome == ["removed saw witness", "replaced saw witness", "cleared saw witness"])
    }

    // MARK: Calls racing with resolves on other threads

    @Test func removeAllWhileOtherThreadsResolve() async throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        @Sendable func registerAll() {
            root.register(Gadget.self, tag: "singleton", lifetime: .singleton) { _ in Gadget() }
            root.register(Gadget.self, tag: "scoped", lifetime: .perContainer) { r in
                Gadget(try r.resolve(Gadget.self, tag: "singleton").name)
            }
            root.register(Gadget.self, tag: "graph") { r in Gadget(try r.resolve(Gadget.self, tag: "scoped").name) }
        }
        registerAll()
        let unexpected = Guarded<[String]>([])
        let counts = Guarded((resolved: 0, missing: 0, clears: 0))
        let deadline = ContinuousClock.now + .seconds(1)
        let finished = await runOnThreads(7, timeout: 60) { index in
            var random = Reliability.SplitMix64(seed: UInt64(index))
            while ContinuousClock.now < deadline {
                if index == 0 {
                    (random.chance(50) ? root : child).removeAll()
                    registerAll()
                    counts.withLock { $0.clears += 1 }
                    continue
                }
                let tag = ["singleton", "scoped", "graph"][random.below(3)]
                do {
                    _ = try (random.chance(50) ? root : child).resolve(Gadget.self, tag: ServiceTag(tag))
                    counts.withLock { $0.resolved += 1 }
                } catch let error as ResolutionError {
                    guard case .notRegistered = error.kind else {
                        // The first two lines say what and where; the suggestions can run long.
                        let summary = "\(error)".split(separator: "\n").prefix(2).joined(separator: " / ")
                        unexpected.withLock { $0.append("\(tag): \(summary)") }
                        continue
                    }
                    counts.withLock { $0.missing += 1 }
                } catch {
                    unexpected.withLock { $0.append("\(tag): \(error)") }
                }
            }
        }
        guard finished else { return }  // runOnThreads recorded the hang
        #expect(
            unexpected.current.count == 0,
            "\(unexpected.current.count) unexpected errors, first: \(unexpected.current.first ?? "")")
        #expect(counts.current.resolved > 0 && counts.current.clears > 0, "\(counts.current)")
        registerAll()
        #expect(try child.resolve(Gadget.self, tag: "graph").name == "gadget")
    }

    @Test func aCollaboratorThatIsGoneIsNoLongerSearched() throws {
        let app = Container(name: "app")
        var feature: Container? = Container(name: "feature")
        app.collaborate(with: feature!)
        feature!.register(Gadget.self, lifetime: .singleton) { _ in Gadget("feature") }
        #expect(try app.resolve(Gadget.self).name == "feature")
        feature = nil
        let error = try #require(throws: ResolutionError.self) { try app.resolve(Gadget.self) }
        #expect(kind(of: error) == "notRegistered")
        #expect(error.searched == ["app"])
    }

    @Test func aCollaboratorFreedWhileOtherThreadsResolveThroughIt() throws {
        let app = Container(name: "app")
        var feature: Container? = Container(name: "feature")
        app.collaborate(with: feature!)
        feature!.register(Gadget.self, lifetime: .singleton) { r in Gadget(try r.resolve(Gadget.self, tag: "part").name)
        }
        feature!.register(Gadget.self, tag: "part") { _ in Gadget("part") }
        let unexpected = Guarded<[String]>([])
        let outcomes = Guarded((resolved: 0, missing: 0))
        let stop = Guarded(false)
        let workers = (0..<4).map { _ in
            StartedThread {
                while !stop.current {
                    do {
                        _ = try app.resolve(Gadget.self)
                        outcomes.withLock { $0.resolved += 1 }
                    } catch let error as ResolutionError {
                        if case .notRegistered = error.kind {
                            outcomes.withLock { $0.missing += 1 }
                        } else {
                            unexpected.withLock { $0.append("\(error)") }
                        }
                    } catch {
                        unexpected.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        // Drop the collaborator once resolves through it succeed; stop once they miss it.
        #expect(Self.poll { outcomes.current.resolved > 0 }, "no resolve succeeded through the collaborator")
        feature = nil
        #expect(Self.poll { outcomes.current.missing > 0 }, "the collaborator was still searched after it was freed")
        stop.withLock { $0 = true }
        for worker in workers {
            #expect(try worker.value() != nil, "resolves racing with a collaborator's deinit hung (watchdog)")
        }
        #expect(unexpected.current.count == 0, "first: \(unexpected.current.first?.split(separator: "\n").first ?? "")")
        #expect(throws: ResolutionError.self) { try app.resolve(Gadget.self) }
    }

    @Test func bootstrapCalledConcurrentlyBuildsEachEagerSingletonOnce() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let builds = Guarded(0)
        for container in [root, child] {
            container.register(Gadget.self, lifetime: .eagerSingleton) { _ in
                builds.withLock { $0 += 1 }
                return Gadget()
            }
        }
        let failures = Guarded<[String]>([])
        let finished = runOnThreads(4, timeout: 30) { _ in
            do { try root.bootstrap() } catch { failures.withLock { $0.append("\(error)") } }
        }
        guard finished else { return }  // runOnThreads recorded the hang
        #expect(failures.current.isEmpty)
        #expect(builds.current == 2)
        try root.bootstrap()
        #expect(builds.current == 2)
    }

    @Test func aFailingEagerSingletonMakesBootstrapThrowAndALaterBootstrapRetries() throws {
        struct NotYet: Error {}
        let container = Container(name: "root")
        let ready = Guarded(false)
        container.register(Gadget.self, lifetime: .eagerSingleton) { _ in
            guard ready.current else { throw NotYet() }
            return Gadget("ready")
        }
        let error = try #require(throws: ResolutionError.self) { try container.bootstrap() }
        guard case .factoryFailed(let cause) = error.kind else {
            Issue.record("expected factoryFailed, got \(error.kind)")
            return
        }
        #expect(cause is NotYet)
        ready.withLock { $0 = true }
        try container.bootstrap()
        #expect(try container.resolve(Gadget.self).name == "ready")
    }
}
