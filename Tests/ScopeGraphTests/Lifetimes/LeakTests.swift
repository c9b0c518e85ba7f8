import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// A protocol the leak probe is forwarded to.
private protocol LeakService: AnyObject, Sendable {}

/// An instance whose lifetime the leak tests watch through weak references.
private final class LeakProbe: LeakService {
    let dependencies: [LeakProbe]
    init(_ dependencies: [LeakProbe] = []) { self.dependencies = dependencies }
}

/// A weak reference that can be handed around and checked later.
private struct Watched<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
    var isFreed: Bool { object == nil }
}

/// Leak tests with weak references: who keeps whom alive.
///
/// Backs "no leak": a child keeps its parent alive but not the reverse, collaboration links
/// keep nothing alive, cached instances die with their container or registration, weak
/// singletons are not retained, and nothing a resolve built outlives it unless a cache or
/// the caller holds it. Override scopes' leak tests live in `Tests/ScopeGraphTestingTests`.
@Suite struct LeakTests {
    @Test func aTreeIsFreedWhenTheLastOutsideReferenceToItGoes() {
        var leaf: Container? = Container(name: "root").makeChild(name: "child").makeChild(name: "leaf")
        let child = Watched(leaf!.parent!)
        let root = Watched(leaf!.parent!.parent!)
        #expect(!child.isFreed && !root.isFreed, "a child must keep its ancestors alive")
        leaf = nil
        #expect(child.isFreed)
        #expect(root.isFreed)
    }

    @Test func aParentDoesNotKeepItsChildrenAlive() {
        let root = Container(name: "root")
        var child: Container? = root.makeChild(name: "child")
        let grandchild = Watched(child!.makeChild(name: "grandchild"))
        let watchedChild = Watched(child!)
        #expect(grandchild.isFreed, "nothing outside holds the grandchild")
        child = nil
        #expect(watchedChild.isFreed)
        #expect(root.children.isEmpty)
    }

    @Test func twoContainersCollaboratingBothWaysAreBothFreed() throws {
        var left: Container? = Container(name: "left")
        var right: Container? = Container(name: "right")
        left!.collaborate(with: right!)
        right!.collaborate(with: left!)
        left!.register(LeakProbe.self, tag: "left", lifetime: .singleton) { r in
            LeakProbe([try r.resolve(tag: "right")])
        }
        right!.register(LeakProbe.self, tag: "right", lifetime: .singleton) { _ in LeakProbe() }
        let instance = Watched(try left!.resolve(LeakProbe.self, tag: "left"))
        _ = try right!.resolve(LeakProbe.self, tag: "left")
        let watchedLeft = Watched(left!)
        let watchedRight = Watched(right!)
        left = nil
        right = nil
        #expect(watchedLeft.isFreed)
        #expect(watchedRight.isFreed)
        #expect(instance.isFreed)
    }

    @Test func aCollaboratorIsFreedWhileTheContainerThatLooksIntoItLives() throws {
        let app = Container(name: "app")
        var feature: Container? = Container(name: "feature")
        app.collaborate(with: feature!)
        feature!.register(LeakProbe.self, lifetime: .singleton) { _ in LeakProbe() }
        _ = try app.resolve(LeakProbe.self)  // memoizes the lookup in `app`
        let watched = Watched(feature!)
        feature = nil
        #expect(watched.isFreed, "a lookup memoized in a collaborating container kept its target alive")
        #expect(app.collaborators.isEmpty)
        #expect(throws: ResolutionError.self) { try app.resolve(LeakProbe.self) }
    }

    @Test(arguments: [Lifetime.singleton, .eagerSingleton, .perContainer])
    func cachedInstancesDieWithTheirContainer(lifetime: Lifetime) throws {
        var container: Container? = Container(name: "root")
        container!.register(LeakProbe.self, tag: "dependency", lifetime: .singleton) { _ in LeakProbe() }
        container!.register(LeakProbe.self, lifetime: lifetime) { r in LeakProbe([try r.resolve(tag: "dependency")]) }
        try container!.bootstrap()
        let instance = Watched(try container!.resolve(LeakProbe.self))
        let dependency = Watched(try container!.resolve(LeakProbe.self, tag: "dependency"))
        #expect(!instance.isFreed, "the container must keep its \(lifetime) instance")
        container = nil
        #expect(instance.isFreed)
        #expect(dependency.isFreed)
    }

    @Test func weakSingletonsAreNotRetainedAndAreRebuiltAfterTheyGo() throws {
        let container = Container(name: "root")
        let builds = Guarded(0)
        container.register(LeakProbe.self, lifetime: .weakSingleton) { _ in
            builds.withLock { $0 += 1 }
            return LeakProbe()
        }
        var held: LeakProbe? = try container.resolve(LeakProbe.self)
        #expect(try container.resolve(LeakProbe.self) === held, "alive: the weak singleton is shared")
        let watched = Watched(held!)
        held = nil
        #expect(watched.isFreed, "the container retained its weak singleton")
        _ = try container.resolve(LeakProbe.self)
        #expect(builds.current == 2)
    }

    @Test func aRemovedRegistrationReleasesItsInstanceAndItsForwards() throws {
        let container = Container(name: "root")
        let registration = container.register(LeakProbe.self, lifetime: .singleton) { _ in LeakProbe() }
            .implements(LeakService.self)
        let watched = Watched(try container.resolve(LeakProbe.self))
        #expect(try container.resolve(LeakService.self) === watched.object)
        container.remove(registration)
        #expect(watched.isFreed)
        #expect(try container.resolveIfRegistered(LeakService.self) == nil, "the forwarded key survived remove")
    }

    @Test func aReplacedRegistrationReleasesItsInstance() throws {
        let container = Container(name: "root")
        container.register(LeakProbe.self, lifetime: .singleton) { _ in LeakProbe() }
        let watched = Watched(try container.resolve(LeakProbe.self))
        container.register(LeakProbe.self, lifetime: .singleton) { _ in LeakProbe() }
        #expect(watched.isFreed)
    }

    @Test func removeAllReleasesSingletonsAndThePerContainerInstancesOfAncestorsRegistrations() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(LeakProbe.self, tag: "scoped", lifetime: .perContainer) { _ in LeakProbe() }
        child.register(LeakProbe.self, tag: "own", lifetime: .singleton) { _ in LeakProbe() }
        let scoped = Watched(try child.resolve(LeakProbe.self, tag: "scoped"))
        let own = Watched(try child.resolve(LeakProbe.self, tag: "own"))
        let rootScoped = try root.resolve(LeakProbe.self, tag: "scoped")
        child.removeAll()
        #expect(scoped.isFreed)
        #expect(own.isFreed)
        #expect(
            try root.resolve(LeakProbe.self, tag: "scoped") === rootScoped, "removeAll on a child emptied its parent")
    }

    @Test func perContainerInstancesOfADroppedChildAreFreed() throws {
        let root = Container(name: "root")
        root.register(LeakProbe.self, lifetime: .perContainer) { _ in LeakProbe() }
        var child: Container? = root.makeChild(name: "child")
        let instance = Watched(try child!.resolve(LeakProbe.self))
        #expect(try child!.resolve(LeakProbe.self) === instance.object)
        child = nil
        #expect(instance.isFreed, "the root kept the dropped child's perContainer instance")
    }

    /// A `Registration` handle kept after its container is dropped keeps the registration, not
    /// the instance it cached: the singleton goes with the container (for eager ones as well).
    @Test(arguments: [Lifetime.singleton, .eagerSingleton])
    func aKeptRegistrationHandleDoesNotKeepItsFreedContainersInstance(_ lifetime: Lifetime) throws {
        var child: Container? = Container(name: "root").makeChild(name: "child")
        let registration = child!.register(LeakProbe.self, lifetime: lifetime) { _ in LeakProbe() }
        let instance = Watched(try child!.resolve(LeakProbe.self))
        child = nil
        #expect(instance.isFreed, "the handle kept the dropped child's \(lifetime) instance")
        #expect(registration.lifetime == lifetime)
    }

    /// What a failed resolve discards is freed: here a singleton that is incomplete (it has an
    /// `onResolved` block, which runs only when the resolve ends) and a `graph` instance.
    @Test func incompleteInstancesBuiltByAFailedResolveAreFreed() throws {
        struct Failure: Error {}
        let container = Container(name: "root")
        let built = Guarded<[Watched<LeakProbe>]>([])
        container.register(LeakProbe.self, tag: "dependency", lifetime: .singleton) { _ in
            let probe = LeakProbe()
            built.withLock { $0.append(Watched(probe)) }
            return probe
        }.onResolved { _, _ in }
        container.register(LeakProbe.self, tag: "graph") { r in LeakProbe([try r.resolve(tag: "dependency")]) }
        container.register(LeakProbe.self) { r in
            _ = try r.resolve(LeakProbe.self, tag: "graph")
            throw Failure()
        }
        #expect(throws: ResolutionError.self) { try container.resolve(LeakProbe.self) }
        #expect(built.current.count == 1)
        #expect(built.current.allSatisfy { $0.isFreed }, "an instance built by the failed resolve is still held")
    }

    @Test func graphAndUniqueInstancesAreNotKeptAfterTheResolveReturns() throws {
        let container = Container(name: "root")
        container.register(LeakProbe.self, tag: "graph") { _ in LeakProbe() }
        container.register(LeakProbe.self, tag: "unique", lifetime: .unique) { _ in LeakProbe() }
        container.register(LeakProbe.self) { r in
            LeakProbe([try r.resolve(tag: "graph"), try r.resolve(tag: "unique")])
        }
        var top: LeakProbe? = try container.resolve(LeakProbe.self)
        let graph = Watched(top!.dependencies[0])
        let unique = Watched(top!.dependencies[1])
        top = nil
        #expect(graph.isFreed)
        #expect(unique.isFreed)
    }

    @Test func aKeptRegistrationHandleDoesNotKeepItsContainerAlive() {
        var container: Container? = Container(name: "root")
        let registration = container!.register(LeakProbe.self, lifetime: .singleton) { _ in LeakProbe() }
        let watched = Watched(container!)
        container = nil
        #expect(watched.isFreed)
        #expect(registration.lifetime == .singleton)
    }
}
