import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// What `shutdown()` does not reach: instances released before it (dead weak singletons,
/// `remove`, replacement, `removeAll`), which it neither shuts down nor keeps alive, and
/// containers dropped without it. And what it closes: `isShutDown` from the moment it begins,
/// for the container and its descendants; resolves from them or through a collaboration link;
/// registrations made afterwards.
@Suite struct ShutdownReleaseTests {
    /// Registers a weak singleton probe tagged "weak" whose hook records in `recorder`, resolves
    /// it and lets it go; returns a watch on that instance.
    private static func weakSingletonResolvedAndDropped(
        in container: Container, recorder: ShutdownRecorder
    ) throws -> WeakProbe<ShutdownProbe> {
        container.registerShutdownProbe("weak", lifetime: .weakSingleton, recorder: recorder)
        return WeakProbe(try container.resolveProbe("weak"))
    }

    @Test func aWeakSingletonThatDiedBeforeShutdownHasNothingToShutDown() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            let watched = try Self.weakSingletonResolvedAndDropped(in: container, recorder: recorder)
            #expect(watched.isFreed, "the weak singleton was kept alive")

            try await container.shutdown()

            #expect(recorder.count == 0)
        }
    }

    @Test func onlyTheLiveInstanceOfARecreatedWeakSingletonIsShutDown() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            let watchedFirst = try Self.weakSingletonResolvedAndDropped(in: container, recorder: recorder)
            let second = try container.resolveProbe("weak")
            #expect(watchedFirst.isFreed)

            try await container.shutdown()

            #expect(recorder.count == 1)
            #expect(recorder.count(of: second) == 1)
        }
    }

    @Test func recordsOfReleasedInstancesAreDroppedAsTheLogGrowsAndTheLiveOnesKept() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            container.registerShutdownProbe("kept", recorder: recorder)
            let kept = try container.resolveProbe("kept")
            // 200 weak singletons, each released before the next is built: the log drops the
            // records of released instances as it grows (at 64, 128 and 192 records) and keeps
            // the live ones, the first built among them.
            container.registerShutdownProbe("weak", lifetime: .weakSingleton, recorder: recorder)
            var released: [WeakProbe<ShutdownProbe>] = []
            for _ in 0..<199 { released.append(WeakProbe(try container.resolveProbe("weak"))) }
            let last = try container.resolveProbe("weak")
            let freed = released.filter(\.isFreed).count
            #expect(freed == released.count, "a released instance was kept alive for its hook")

            try await container.shutdown()

            #expect(recorder.recorded(exactly: [last, kept]), "\(recorder.labels)")
        }
    }

    @Test func anInstanceReleasedByRemoveIsFreedAndNotShutDown() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            let registration = container.registerShutdownProbe("removed", recorder: recorder)
            container.registerShutdownProbe("kept", recorder: recorder)
            let watched = WeakProbe(try container.resolveProbe("removed"))
            let kept = try container.resolveProbe("kept")
            container.remove(registration)
            #expect(watched.isFreed, "the removed instance was kept alive for its hook")

            try await container.shutdown()

            #expect(recorder.recorded(exactly: [kept]), "\(recorder.labels)")
        }
    }

    @Test func anInstanceReleasedByReplacementIsFreedAndNotShutDown() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            container.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("old") }
                .onShutdown { recorder.record($0) }
            let watched = WeakProbe(try container.resolve(ShutdownProbe.self))
            container.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("new") }
                .onShutdown { recorder.record($0) }
            #expect(watched.isFreed, "the replaced instance was kept alive for its hook")
            let replacement = try container.resolve(ShutdownProbe.self)

            try await container.shutdown()

            #expect(recorder.recorded(exactly: [replacement]), "\(recorder.labels)")
        }
    }

    @Test func instancesReleasedByRemoveAllAreFreedAndNotShutDown() async throws {
        try await withShutdownRecorder(container: "root") { recorder, root in
            root.registerShutdownProbe("scoped", lifetime: .perContainer, recorder: recorder)
            let child = root.makeChild(name: "child")
            child.registerShutdownProbe("own", recorder: recorder)
            let watchedScoped = WeakProbe(try child.resolveProbe("scoped"))  // cached in the child
            let watchedOwn = WeakProbe(try child.resolveProbe("own"))
            let rootScoped = try root.resolveProbe("scoped")
            child.removeAll()
            #expect(watchedScoped.isFreed, "the child's perContainer instance was kept alive for its hook")
            #expect(watchedOwn.isFreed, "the child's singleton was kept alive for its hook")

            try await root.shutdown()

            #expect(recorder.count == 1)
            #expect(recorder.count(of: rootScoped) == 1)
            #expect(child.isShutDown)  // and kept alive until here
        }
    }

    @Test func aDroppedContainerRunsNoHooksAndFreesEverything() async throws {
        try await withAsyncWatchdog {
            let recorder = ShutdownRecorder()
            var watched: [WeakProbe<ShutdownProbe>] = []
            var watchedContainers: [WeakProbe<Container>] = []
            do {
                let root = Container(name: "root")
                root.registerShutdownProbe("pool", recorder: recorder)
                root.registerShutdownProbe(
                    "handler", lifetime: .perContainer, dependencies: ["pool"], recorder: recorder)
                root.registerShutdownProbe("eager", lifetime: .eagerSingleton, recorder: recorder)
                root.registerShutdownProbe("weak", lifetime: .weakSingleton, recorder: recorder)
                let child = root.makeChild(name: "child")
                try root.bootstrap()
                let weak = try root.resolveProbe("weak")
                for (container, label) in [(child, "handler"), (root, "handler"), (root, "pool"), (root, "eager")] {
                    watched.append(WeakProbe(try container.resolveProbe(label)))
                }
                watched.append(WeakProbe(weak))
                watchedContainers = [WeakProbe(root), WeakProbe(child)]
            }

            #expect(watchedContainers.allSatisfy { $0.isFreed }, "a container outlived its last reference")
            #expect(watched.allSatisfy { $0.isFreed }, "an instance outlived its dropped container")
            await Task.yield()
            #expect(recorder.count == 0, "a dropped container ran hooks")
        }
    }

    @Test func aDroppedChildRunsNoHooksWhenItsRootShutsDown() async throws {
        try await withShutdownRecorder(container: "root") { recorder, root in
            root.registerShutdownProbe("handler", lifetime: .perContainer, recorder: recorder)
            var child: Container? = root.makeChild(name: "child")
            let watched = WeakProbe(try child!.resolveProbe("handler"))
            child = nil
            #expect(watched.isFreed)

            try await root.shutdown()

            #expect(recorder.count == 0)
        }
    }

    @Test func isShutDownIsTrueForTheContainerAndItsDescendantsFromTheMomentShutdownBegins() async throws {
        try await withAsyncWatchdog {
            let seen = Guarded<[String: Bool]>([:])
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let grandchild = child.makeChild(name: "grandchild")
            let madeDuringShutdown = Guarded<Container?>(nil)
            // The hooks capture the containers: the registrations go at the end, breaking the cycle.
            defer {
                root.removeAll()
                child.removeAll()
                madeDuringShutdown.withLock { $0 = nil }
            }
            root.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("root") }
                .onShutdown { _ in
                    let lateChild = root.makeChild(name: "late")
                    madeDuringShutdown.withLock { $0 = lateChild }
                    seen.withLock {
                        $0["root"] = root.isShutDown
                        $0["child"] = child.isShutDown
                        $0["grandchild"] = grandchild.isShutDown
                        $0["made in the hook"] = lateChild.isShutDown
                    }
                }
            child.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("child") }
                .onShutdown { _ in seen.withLock { $0["root, seen from the child's hook"] = root.isShutDown } }
            _ = try root.resolve(ShutdownProbe.self)
            _ = try child.resolve(ShutdownProbe.self)
            #expect(!root.isShutDown && !child.isShutDown && !grandchild.isShutDown)

            try await root.shutdown()

            #expect(
                seen.current == [
                    "root": true, "child": true, "grandchild": true, "made in the hook": true,
                    "root, seen from the child's hook": true,
                ])
            #expect(root.makeChild(name: "after").isShutDown, "a child made after the shutdown")
            #expect(child.makeChild(name: "after").isShutDown, "a grandchild made after the shutdown")
        }
    }

    @Test func shuttingDownAChildLeavesItsParentAndSiblingsRunning() async throws {
        try await withShutdownRecorder(container: "root") { recorder, root in
            root.registerShutdownProbe("pool", recorder: recorder)
            let closed = root.makeChild(name: "closed")
            let sibling = root.makeChild(name: "sibling")
            _ = try closed.resolveProbe("pool")

            try await closed.shutdown()

            #expect(closed.isShutDown)
            #expect(!root.isShutDown && !sibling.isShutDown)
            #expect(try sibling.resolveProbe("pool") === root.resolveProbe("pool"))
            #expect(recorder.count == 0, "the root's singleton is the root's to shut down")
        }
    }

    /// The ways of resolving, each of which must fail once its container is shut down.
    enum ResolveWay: String, CaseIterable, Sendable {
        case resolve, resolveAsync, resolveIfRegistered, resolveAll, argument

        func run(_ container: Container) async throws {
            switch self {
            case .resolve: _ = try container.resolve(ShutdownProbe.self)
            case .resolveAsync: _ = try await container.resolveAsync(ShutdownProbe.self)
            case .resolveIfRegistered: _ = try container.resolveIfRegistered(ShutdownProbe.self)
            case .resolveAll: _ = try container.resolveAll(ShutdownProbe.self)
            case .argument: _ = try container.resolve(ShutdownProbe.self, tag: nil, arguments: "label")
            }
        }
    }

    /// A root with cached and uncached registrations (plain and with a runtime argument), a
    /// child, and a grandchild, all of which resolved before the shutdown.
    private static func resolvedTree() throws -> (root: Container, descendants: [Container]) {
        let root = Container(name: "root")
        root.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("cached") }
        root.register(ShutdownProbe.self) { (_, label: String) in ShutdownProbe(label) }
        let child = root.makeChild(name: "child")
        let grandchild = child.makeChild(name: "grandchild")
        for container in [root, child, grandchild] {
            _ = try container.resolve(ShutdownProbe.self)
            _ = try container.resolve(ShutdownProbe.self, tag: nil, arguments: "warm")
        }
        return (root, [child, grandchild])
    }

    @Test(arguments: ResolveWay.allCases)
    func resolvingFromAShutDownContainerOrADescendantThrowsContainerShutDown(_ way: ResolveWay) async throws {
        try await withAsyncWatchdog {
            let (root, descendants) = try Self.resolvedTree()

            try await root.shutdown()

            for container in [root] + descendants + [root.makeChild(name: "made after")] {
                let kind = await resolutionErrorKindAsync { try await way.run(container) }
                #expect(kind == "containerShutDown", "\(way) from \(container.name)")
            }
        }
    }

    @Test(arguments: ResolveWay.allCases)
    func aLookupThatReachesAShutDownContainerThroughACollaborationLinkThrowsContainerShutDown(
        _ way: ResolveWay
    ) async throws {
        try await withAsyncWatchdog {
            let (vendor, _) = try Self.resolvedTree()
            let app = Container(name: "app")
            let feature = app.makeChild(name: "feature")
            feature.collaborate(with: vendor)
            _ = try feature.resolve(ShutdownProbe.self)  // the lookup through the link is memoized
            _ = try feature.resolve(ShutdownProbe.self, tag: nil, arguments: "warm")

            try await vendor.shutdown()

            #expect(!feature.isShutDown, "a collaboration link does not shut the container that looks in")
            let kind = await resolutionErrorKindAsync { try await way.run(feature) }
            #expect(kind == "containerShutDown", "\(way) from the collaborating container")
        }
    }

    @Test func aContainerThatCollaboratesWithAShutDownOneStillResolvesItsOwnRegistrations() async throws {
        try await withAsyncWatchdog {
            let vendor = Container(name: "vendor")
            let app = Container(name: "app")
            app.collaborate(with: vendor)
            app.register(ShutdownProbe.self, lifetime: .singleton) { _ in ShutdownProbe("own") }

            try await vendor.shutdown()

            #expect(try app.resolve(ShutdownProbe.self).label == "own")
        }
    }

    @Test func registeringIntoAShutDownContainerHasNoEffectAResolveCanSee() async throws {
        try await withAsyncWatchdog {
            let builds = Counter()
            let recorder = ShutdownRecorder()
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let collaborator = Container(name: "collaborator")
            collaborator.collaborate(with: root)

            try await root.shutdown()
            root.register(ShutdownProbe.self, lifetime: .singleton, counting: builds) { ShutdownProbe("late") }
                .onShutdown { recorder.record($0) }
            child.register(ShutdownProbe.self, tag: "child", counting: builds) { ShutdownProbe("late child") }

            for container in [root, child, collaborator, root.makeChild(name: "made after")] {
                #expect(resolutionErrorKind { _ = try container.resolve(ShutdownProbe.self) } == "containerShutDown")
                #expect(
                    resolutionErrorKind { _ = try container.resolveIfRegistered(ShutdownProbe.self) }
                        == "containerShutDown")
                #expect(resolutionErrorKind { _ = try container.resolveAll(ShutdownProbe.self) } == "containerShutDown")
            }
            #expect(
                resolutionErrorKind { _ = try child.resolve(ShutdownProbe.self, tag: "child") } == "containerShutDown")
            #expect(builds.value == 0)
            try await root.shutdown()
            #expect(recorder.count == 0)
        }
    }

    @Test func bootstrappingAShutDownContainerLeavesNoInstanceBehind() async throws {
        try await withShutdownRecorder(container: "root") { recorder, root in
            let built = Guarded<[WeakProbe<ShutdownProbe>]>([])
            try await root.shutdown()
            root.register(ShutdownProbe.self, lifetime: .eagerSingleton) { _ in
                let probe = ShutdownProbe("eager")
                built.withLock { $0.append(WeakProbe(probe)) }
                return probe
            }
            .onShutdown { recorder.record($0) }

            let kind = resolutionErrorKind { try root.bootstrap() }

            #expect(kind == nil || kind == "containerShutDown")
            #expect(built.current.allSatisfy { $0.isFreed }, "an instance built for a shut-down container survived")
            #expect(resolutionErrorKind { _ = try root.resolve(ShutdownProbe.self) } == "containerShutDown")
            #expect(recorder.count == 0)
        }
    }
}
