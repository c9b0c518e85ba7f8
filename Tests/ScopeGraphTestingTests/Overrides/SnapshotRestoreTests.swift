import Foundation
import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

@Suite struct SnapshotRestoreTests {
    /// One kind of change made to a container after its snapshot.
    enum Change: String, CaseIterable, Sendable {
        case replacedRegistration, removedRegistration, addedRegistration, addedTaggedRegistration
        case addedArgumentRegistration, addedForwardedType, addedLink, removedLink, everythingAtOnce
    }

    /// A container `app` with registrations and one link to `partner`, plus what restore must
    /// bring back.
    struct World {
        let app = Container(name: "app")
        let partner = Container(name: "partner")
        let spare = Container(name: "spare")
        let widget: Registration<Widget>
        /// Taken before `app` was linked to `partner`: restoring it removes the link.
        let beforeLink: ContainerSnapshot

        init() {
            app.register((any API).self, lifetime: .singleton) { _ in RealAPI() }
            widget = app.register(Widget.self) { _ in Widget("app") }
            app.register(Widget.self, tag: "tagged") { _ in Widget("app-tagged") }
            partner.register(String.self) { _ in "from partner" }
            spare.register(String.self) { _ in "from spare" }
            spare.register(Int.self) { _ in 7 }
            beforeLink = app.snapshot()
            app.collaborate(with: partner)
        }

        func change(_ change: Change) {
            switch change {
            case .replacedRegistration:
                app.register(Widget.self) { _ in Widget("replacement") }
            case .removedRegistration:
                app.remove(widget)
            case .addedRegistration:
                app.register(String.self) { _ in "added in app" }
            case .addedTaggedRegistration:
                app.register(Widget.self, tag: "new") { _ in Widget("new tag") }
            case .addedArgumentRegistration:
                app.register(Widget.self) { (_, label: String) in Widget(label) }
            case .addedForwardedType:
                app.register(FakeAPI.self) { _ in FakeAPI() }.implements((any API).self)
            case .addedLink:
                app.collaborate(with: spare)
            case .removedLink:
                app.restore(beforeLink)
            case .everythingAtOnce:
                app.register(Widget.self) { _ in Widget("replacement") }
                app.register(String.self) { _ in "added in app" }
                app.register(FakeAPI.self) { _ in FakeAPI() }.implements((any API).self)
                app.collaborate(with: spare)
            }
        }

        /// What resolving from `app` gives, in words.
        func observed() throws -> [String] {
            [
                (try app.resolveIfRegistered(Widget.self))?.label ?? "no Widget",
                (try app.resolveIfRegistered(Widget.self, tag: "tagged"))?.label ?? "no tagged Widget",
                (try app.resolveIfRegistered(Widget.self, tag: "new"))?.label ?? "no new Widget",
                (try? app.resolve(Widget.self, tag: nil, arguments: "argument"))?.label ?? "no Widget(String)",
                (try app.resolveIfRegistered(String.self)) ?? "no String",
                (try app.resolveIfRegistered(Int.self)).map { "Int \($0)" } ?? "no Int",
                (try app.resolve((any API).self)).name,
                app.collaborators.map(\.name).joined(separator: ","),
            ]
        }
    }

    @Test(arguments: Change.allCases)
    func restoreBringsBackExactlyTheSnapshotAfter(_ change: Change) throws {
        let world = World()
        let expectedDescription = world.app.description
        let expected = try world.observed()
        let snapshot = world.app.snapshot()

        world.change(change)
        #expect(try world.observed() != expected, "the change must be visible before restore")

        world.app.restore(snapshot)
        #expect(try world.observed() == expected)
        #expect(world.app.description == expectedDescription)
    }

    @Test func restoreUndoesBlocksAndForwardedTypesAddedToAnExistingRegistration() throws {
        let app = Container(name: "app")
        let blockRuns = Counter()
        let widget = app.register(Widget.self) { _ in Widget("app") }
        widget.onResolved { _, _ in blockRuns.increment() }
        let expectedDescription = app.description
        let snapshot = app.snapshot()

        widget.onResolved { _, _ in blockRuns.increment() }
        widget.implements(Widget.self, tag: "alias")
        _ = try app.resolve(Widget.self)
        #expect(blockRuns.value == 2, "both blocks run before restore")
        #expect(try app.resolve(Widget.self, tag: "alias").label == "app")

        let runsBeforeRestore = blockRuns.value
        app.restore(snapshot)
        _ = try app.resolve(Widget.self)
        #expect(blockRuns.value == runsBeforeRestore + 1, "only the block added before the snapshot runs")
        #expect(try app.resolveIfRegistered(Widget.self, tag: "alias") == nil)
        #expect(app.description == expectedDescription)
    }

    @Test func restoreEmptiesEveryCacheOfTheContainer() throws {
        let app = Container(name: "app")
        let builds = Counter()
        for lifetime in [Lifetime.singleton, .weakSingleton, .eagerSingleton, .perContainer] {
            app.register(Widget.self, tag: ServiceTag("\(lifetime)"), lifetime: lifetime) { _ in
                builds.increment()
                return Widget("\(lifetime)")
            }
        }
        let tags = ["singleton", "weakSingleton", "eagerSingleton", "perContainer"].map { ServiceTag($0) }
        let before = try tags.map { try app.resolve(Widget.self, tag: $0) }
        #expect(try tags.map { try app.resolve(Widget.self, tag: $0) }.elementsEqual(before, by: ===))
        #expect(builds.value == 4)

        app.restore(app.snapshot())

        let after = try tags.map { try app.resolve(Widget.self, tag: $0) }
        #expect(builds.value == 8)
        for (old, new) in zip(before, after) { #expect(old !== new, "\(old.label) was not rebuilt") }
    }

    @Test func restoreEmptiesPerContainerInstancesOfAnAncestorsRegistration() throws {
        let root = Container(name: "root")
        root.register(Widget.self, lifetime: .perContainer) { _ in Widget() }
        let child = root.makeChild(name: "child")
        let inChild = try child.resolve(Widget.self)
        let inRoot = try root.resolve(Widget.self)

        child.restore(child.snapshot())

        #expect(try child.resolve(Widget.self) !== inChild)
        #expect(try root.resolve(Widget.self) === inRoot, "the root's own cache is not the child's to empty")
    }

    @Test func restoreReleasesTheInstancesItEmpties() throws {
        let app = Container(name: "app")
        app.register(Widget.self, lifetime: .singleton) { _ in Widget() }
        let snapshot = app.snapshot()
        weak var built: Widget?
        do { built = try app.resolve(Widget.self) }
        #expect(built != nil, "the singleton is cached before restore")

        app.restore(snapshot)

        #expect(built == nil)
    }

    /// Restore undoes an `onResolved` block whose closure holds the last reference to an object
    /// whose `deinit` resolves the same registration: the block is released after the
    /// registration's lock (it used to be released under it, and the resolve then waited for
    /// that lock forever). Bounded: a hang fails the test after 20 s.
    @Test func restoreMayFreeABlockWhoseCaptureResolvesTheRegistration() {
        let app = Container(name: "app")
        let registration = app.register(Widget.self) { _ in Widget() }
        let snapshot = app.snapshot()
        let resolvedInDeinit = Locked(false)
        Self.addBlock(to: registration, resolving: app, flag: resolvedInDeinit)
        let finished = StartedThread { app.restore(snapshot) }.result(timeout: 20) != nil
        #expect(finished, "restore did not return within 20 s")
        guard finished else { return }
        #expect(resolvedInDeinit.withLock { $0 })
    }

    /// Adds a block that holds an object whose `deinit` resolves `Widget` from `container`.
    @inline(never)
    private static func addBlock(
        to registration: Registration<Widget>, resolving container: Container, flag: Locked<Bool>
    ) {
        let capture = DeinitAction { flag.withLock { $0 = (try? container.resolve(Widget.self)) != nil } }
        registration.onResolved { _, _ in _ = capture }
    }

    @Test func aSnapshotDoesNotKeepItsContainerAlive() throws {
        weak var container: Container?
        let snapshot: ContainerSnapshot
        do {
            let app = Container(name: "app")
            app.register(Widget.self) { _ in Widget() }
            snapshot = app.snapshot()
            container = app
        }
        #expect(snapshot.containerName == "app")
        #expect(container == nil)
    }

    /// A snapshot shares the container's registrations, not its cache: the singleton goes with
    /// the container even while the snapshot lives.
    @Test func aSingletonOfADroppedContainerGoesWithItWhileItsSnapshotLives() throws {
        weak var instance: Widget?
        var snapshot: ContainerSnapshot?
        do {
            let app = Container(name: "app")
            app.register(Widget.self, lifetime: .singleton) { _ in Widget() }
            instance = try app.resolve(Widget.self)
            snapshot = app.snapshot()
            #expect(instance != nil)
        }
        #expect(snapshot != nil)
        #expect(instance == nil, "the snapshot kept the dropped container's singleton")
    }

    @Test func registrationHandlesKeepWorkingAfterRestore() throws {
        let app = Container(name: "app")
        let widget = app.register(Widget.self) { _ in Widget("original") }
        let snapshot = app.snapshot()
        app.register(Widget.self) { _ in Widget("replacement") }

        app.restore(snapshot)
        #expect(try app.resolve(Widget.self).label == "original")
        app.remove(widget)

        #expect(try app.resolveIfRegistered(Widget.self) == nil)
    }

    @Test(arguments: [Lifetime.singleton, .weakSingleton, .perContainer])
    func aRegistrationRemovedAndRestoredCachesItsInstancesAgain(lifetime: Lifetime) throws {
        let app = Container(name: "app")
        let feature = app.makeChild(name: "feature")
        let runs = Counter()
        let widget = app.register(Widget.self, lifetime: lifetime) { _ in
            runs.increment()
            return Widget("cached")
        }
        let snapshot = app.snapshot()
        app.remove(widget)
        app.restore(snapshot)

        let first = try feature.resolve(Widget.self)
        #expect(try feature.resolve(Widget.self) === first)
        #expect(runs.value == 1)
        app.remove(widget)
        #expect(try feature.resolveIfRegistered(Widget.self) == nil)
    }

    @Test func aSnapshotCanBeRestoredAgainAndAgain() throws {
        let app = Container(name: "app")
        app.register(Int.self) { _ in 1 }
        let snapshot = app.snapshot()
        for round in 2...4 {
            app.register(Int.self) { _ in round }
            #expect(try app.resolve(Int.self) == round)
            app.restore(snapshot)
            #expect(try app.resolve(Int.self) == 1)
        }
    }

    @Test func restoreLeavesChildrenParentAndCollaboratorsAlone() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let partner = Container(name: "partner")
        feature.collaborate(with: partner)
        let snapshot = feature.snapshot()
        root.register(Int.self) { _ in 1 }
        partner.register(String.self) { _ in "partner" }
        let grandchild = feature.makeChild(name: "grandchild")
        grandchild.register(Double.self) { _ in 2.5 }

        feature.restore(snapshot)

        #expect(try feature.resolve(Int.self) == 1)
        #expect(try feature.resolve(String.self) == "partner")
        #expect(try grandchild.resolve(Double.self) == 2.5)
        #expect(feature.children.map(\.name) == ["grandchild"])
    }

    @Test func restoreMakesChildrenForgetLookupsThatAnsweredFromTheRestoredContainer() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let snapshot = root.snapshot()
        root.register(String.self) { _ in "added" }
        #expect(try child.resolve(String.self) == "added")

        root.restore(snapshot)

        #expect(try child.resolveIfRegistered(String.self) == nil)
    }

    #if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)  // where exit tests run
    /// Restoring a snapshot into a container other than the one it was taken from stops the
    /// program, with a message that names both containers and says what to do.
    @Test func restoringAnotherContainersSnapshotStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let first = Container(name: "first")
            let second = Container(name: "second")
            second.restore(first.snapshot())
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            output.contains(
                "ScopeGraphTesting: restore(_:) was given a snapshot of container 'first', not of 'second'"))
        #expect(output.contains("restore a snapshot into the container it was taken from"))
    }
    #endif
}

/// Runs an action when freed.
private final class DeinitAction: Sendable {
    let action: @Sendable () -> Void
    init(_ action: @escaping @Sendable () -> Void) { self.action = action }
    deinit { action() }
}

// MARK: Restore empties caches after every kind of change

extension SnapshotRestoreTests {
    /// restore empties a weak singleton slot even while the instance is held outside.
    @Test func restoreForgetsAWeakSingletonStillHeldOutside() throws {
        let container = Container(name: "c")
        container.register(Widget.self, lifetime: .weakSingleton) { _ in Widget() }
        let snap = container.snapshot()
        var held: Widget?
        for _ in 0..<10 { held = try container.resolve(Widget.self) }
        container.restore(snap)
        #expect(try container.resolve(Widget.self) !== held)
    }

    /// restore after remove and add brings back the registration, not its old instance.
    @Test func restoreAfterARemovalBringsTheRegistrationBackWithoutItsOldInstance() throws {
        let container = Container(name: "c")
        let reg = container.register(Widget.self, lifetime: .singleton) { _ in Widget("a") }
        var first: Widget?
        for _ in 0..<10 { first = try container.resolve(Widget.self) }
        let snap = container.snapshot()
        container.remove(reg)
        container.register(Widget.self, tag: "new") { _ in Widget("new") }
        container.restore(snap)
        #expect(try container.resolveIfRegistered(Widget.self, tag: "new") == nil)
        let again = try container.resolve(Widget.self)
        #expect(again !== first)
        #expect(again.label == "a")
        #expect(try container.resolve(Widget.self) === again)
    }

    /// bootstrap after restore builds the eager singleton again.
    @Test func bootstrapAfterRestoreBuildsTheEagerSingletonAgain() throws {
        let container = Container(name: "c")
        let builds = Counter()
        container.register(Widget.self, lifetime: .eagerSingleton, counting: builds) { Widget() }
        let snap = container.snapshot()
        try container.bootstrap()
        container.restore(snap)
        try container.bootstrap()
        #expect(builds.value == 2)
    }

    /// restore after a replacement drops the forward and a new key, and brings back the forward with a new instance.
    @Test func restoreAfterAReplacementBringsBackTheForwardsWithAFreshInstance() throws {
        let container = Container(name: "c")
        container.register(RealAPI.self, lifetime: .singleton) { _ in RealAPI() }.implements((any API).self)
        var first: (any API)?
        for _ in 0..<10 { first = try container.resolve((any API).self) }
        let snap = container.snapshot()
        container.register(RealAPI.self, lifetime: .singleton) { _ in RealAPI() }
        #expect(try container.resolveIfRegistered((any API).self) == nil)
        container.register((any API).self) { _ in FakeAPI() }
        container.restore(snap)
        let again = try container.resolve((any API).self)
        #expect(again.name == "real")
        #expect(again !== first)
        #expect(try container.resolve(RealAPI.self) === again)
    }
}

// MARK: Contract probes: exactly the snapshot's links, and lookups that must be forgotten

extension SnapshotRestoreTests {
    @Suite struct ContractProbes {
        /// Restore brings back the snapshot's links in their order, whatever order they were
        /// linked again in since: the lookup visits the first linked collaborator first.
        @Test func restoreBringsBackTheLinksInTheSnapshotsOrder() throws {
            let app = Container(name: "app")
            let first = Container(name: "first")
            let second = Container(name: "second")
            first.register(String.self) { _ in "first" }
            second.register(String.self) { _ in "second" }
            let unlinked = app.snapshot()
            app.collaborate(with: first, second)
            let linked = app.snapshot()
            app.restore(unlinked)
            app.collaborate(with: second, first)
            #expect(try app.resolve(String.self) == "second")

            app.restore(linked)

            #expect(app.collaborators.map(\.name) == ["first", "second"])
            #expect(try app.resolve(String.self) == "first")
        }

        /// A link added since the snapshot goes, also for a child whose lookups (memoized, since
        /// it has registrations of its own) answered through it; a collaboration cycle in the
        /// snapshot comes back as it was.
        @Test func restoreMakesChildrenForgetLookupsThatAnsweredThroughARemovedLink() throws {
            let root = Container(name: "root")
            let partner = Container(name: "partner")
            partner.collaborate(with: root)
            let child = root.makeChild(name: "child")
            child.register(Int.self) { _ in 1 }
            partner.register(String.self) { _ in "partner" }
            let snapshot = root.snapshot()
            root.collaborate(with: partner)
            #expect(try child.resolve(String.self) == "partner")
            #expect(try child.resolve(String.self) == "partner")

            root.restore(snapshot)

            #expect(root.collaborators.isEmpty)
            #expect(try child.resolveIfRegistered(String.self) == nil)
            #expect(partner.collaborators.map(\.name) == ["root"], "the partner's own link is not root's to undo")
        }

        /// A grandchild whose lookup fell through to the root, after the child's shadowing
        /// registration was removed, sees the child's registration again after the child's restore.
        @Test func restoreBringsBackAShadowingRegistrationForDescendants() throws {
            let root = Container(name: "root")
            root.register(String.self) { _ in "root" }
            let child = root.makeChild(name: "child")
            let shadow = child.register(String.self) { _ in "child" }
            let grandchild = child.makeChild(name: "grandchild")
            grandchild.register(Int.self) { _ in 1 }
            let snapshot = child.snapshot()
            #expect(try grandchild.resolve(String.self) == "child")
            child.remove(shadow)
            #expect(try grandchild.resolve(String.self) == "root")

            child.restore(snapshot)

            #expect(try grandchild.resolve(String.self) == "child")
        }

        /// A `perContainer` registration replaced in the root after its snapshot, whose
        /// replacement a child cached: once the root is restored, the child builds the restored
        /// registration's instance, not the replacement's.
        @Test func aChildForgetsThePerContainerInstanceOfAReplacementTheRootRestoredAway() throws {
            let root = Container(name: "root")
            root.register(Widget.self, lifetime: .perContainer) { _ in Widget("original") }
            let child = root.makeChild(name: "child")
            let snapshot = root.snapshot()
            root.register(Widget.self, lifetime: .perContainer) { _ in Widget("replacement") }
            #expect(try child.resolve(Widget.self).label == "replacement")

            root.restore(snapshot)

            #expect(try child.resolve(Widget.self).label == "original")
        }

        /// Restoring a child empties the child's caches only: the parent's singleton and the
        /// parent's own `perContainer` instance stay, the child's own singleton and its
        /// `perContainer` instance of the parent's registration are built again.
        @Test func restoringAChildLeavesTheParentsCachesAlone() throws {
            let root = Container(name: "root")
            root.register(Widget.self, tag: "single", lifetime: .singleton) { _ in Widget("root singleton") }
            root.register(Widget.self, tag: "each", lifetime: .perContainer) { _ in Widget("per container") }
            let child = root.makeChild(name: "child")
            child.register(Widget.self, lifetime: .singleton) { _ in Widget("child singleton") }
            let rootSingleton = try child.resolve(Widget.self, tag: "single")
            let rootEach = try root.resolve(Widget.self, tag: "each")
            let childEach = try child.resolve(Widget.self, tag: "each")
            let childSingleton = try child.resolve(Widget.self)

            child.restore(child.snapshot())

            #expect(try child.resolve(Widget.self, tag: "single") === rootSingleton)
            #expect(try root.resolve(Widget.self, tag: "single") === rootSingleton)
            #expect(try root.resolve(Widget.self, tag: "each") === rootEach)
            #expect(try child.resolve(Widget.self, tag: "each") !== childEach)
            #expect(try child.resolve(Widget.self) !== childSingleton)
        }

        /// A `perContainer` instance cached in the container for a collaborator's registration
        /// is emptied by restore; the collaborator's own instance stays.
        @Test func restoreEmptiesPerContainerInstancesOfACollaboratorsRegistration() throws {
            let partner = Container(name: "partner")
            partner.register(Widget.self, lifetime: .perContainer) { _ in Widget() }
            let app = Container(name: "app")
            app.collaborate(with: partner)
            let inApp = try app.resolve(Widget.self)
            let inPartner = try partner.resolve(Widget.self)
            #expect(try app.resolve(Widget.self) === inApp)

            app.restore(app.snapshot())

            #expect(try app.resolve(Widget.self) !== inApp)
            #expect(try partner.resolve(Widget.self) === inPartner)
        }

        /// After `removeAll()` a restore brings every registration, forward and link back.
        @Test func restoreAfterRemoveAllBringsEverythingBack() throws {
            let app = Container(name: "app")
            let partner = Container(name: "partner")
            partner.register(Int.self) { _ in 7 }
            app.collaborate(with: partner)
            app.register(RealAPI.self, lifetime: .singleton) { _ in RealAPI() }.implements((any API).self)
            app.register(Widget.self, tag: "t") { (_, label: String) in Widget(label) }
            let description = app.description
            let snapshot = app.snapshot()
            let before = try app.resolve((any API).self)

            app.removeAll()
            #expect(try app.resolveIfRegistered((any API).self) == nil)
            app.restore(snapshot)

            #expect(app.description == description)
            let after = try app.resolve((any API).self)
            #expect(after !== before)
            #expect(try app.resolve(RealAPI.self) === after)
            #expect(try app.resolve(Widget.self, tag: "t", arguments: "x").label == "x")
            #expect(try app.resolve(Int.self) == 7)
        }
    }
}
