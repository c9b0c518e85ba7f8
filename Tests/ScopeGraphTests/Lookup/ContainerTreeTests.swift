import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Containers: the tree (`makeChild`, `parent`, `children`), collaboration links, and who keeps
/// whom alive.
@Suite struct ContainerTreeTests {
    final class Service: Sendable {}
    final class Versioned: Sendable {
        let version: Int
        init(version: Int) { self.version = version }
    }

    @Test func aContainerIsARootNamedRootByDefault() {
        let container = Container()
        #expect(container.name == "root")
        #expect(container.parent == nil)
        #expect(Container(name: "app").name == "app")
    }

    @Test func theSharedContainerIsNamedShared() {
        #expect(Container.shared.name == "shared")
    }

    @Test func currentDefaultsToSharedAndCanBeBoundForATask() {
        let mine = Container(name: "mine")
        #expect(Container.current === Container.shared)
        Container.$current.withValue(mine) { #expect(Container.current === mine) }
        #expect(Container.current === Container.shared)
    }

    @Test func makeChildCreatesAChildWhoseParentIsTheContainer() {
        let root = Container(name: "app")
        let child = root.makeChild(name: "feature")
        let grandchild = child.makeChild(name: "screen")
        #expect(child.name == "feature")
        #expect(child.parent === root)
        #expect(grandchild.parent === child)
        #expect(root.children.map(\.name) == ["feature"])
        #expect(child.children.map(\.name) == ["screen"])
    }

    @Test func childrenAreListedInCreationOrder() {
        let root = Container(name: "app")
        let children = ["a", "b", "c"].map { root.makeChild(name: $0) }
        #expect(root.children.map(\.name) == ["a", "b", "c"])
        withExtendedLifetime(children) {}
    }

    @Test(arguments: [3, 40, 2_000])
    func childrenStayInCreationOrderAsTheyComeAndGo(count: Int) throws {
        // Past a few dozen live children, a parent keeps them in a table instead of a list.
        let root = Container(name: "app")
        root.register(Versioned.self) { _ in Versioned(version: 1) }
        var children = (0..<count).map { root.makeChild(name: "c\($0)") }
        // Drop every third child, the oldest ones first, then add two more.
        children = children.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)
        children += [root.makeChild(name: "late-1"), root.makeChild(name: "late-2")]
        #expect(root.children.map(\.name) == children.map(\.name))
        // Every live child still sees a replacement in the parent: a child with registrations
        // of its own memoizes its lookups, and the parent must reach it to invalidate them.
        for child in children {
            child.register(Int.self) { _ in 0 }
            for _ in 0..<3 { #expect(try child.resolve(Versioned.self).version == 1) }
        }
        root.register(Versioned.self) { _ in Versioned(version: 2) }
        #expect(try children.allSatisfy { try $0.resolve(Versioned.self).version == 2 })
        children.removeAll()
        #expect(root.children.isEmpty)
    }

    @Test func aChildKeepsItsParentAlive() {
        weak var weakRoot: Container?
        var child: Container?
        do {
            let root = Container(name: "app")
            weakRoot = root
            child = root.makeChild(name: "feature")
        }
        #expect(weakRoot != nil)
        #expect(child?.parent === weakRoot)
        child = nil
        #expect(weakRoot == nil)
    }

    @Test func aParentDoesNotKeepItsChildrenAlive() {
        let root = Container(name: "app")
        weak var weakChild: Container?
        do {
            let child = root.makeChild(name: "feature")
            weakChild = child
            #expect(root.children.count == 1)
        }
        #expect(weakChild == nil)
        #expect(root.children.isEmpty)
    }

    @Test func aDroppedChildReleasesTheInstancesItCached() throws {
        let root = Container(name: "app")
        weak var weakService: Service?
        do {
            let child = root.makeChild(name: "feature")
            child.register(Service.self, lifetime: .singleton) { _ in Service() }
            weakService = try child.resolve(Service.self)
            #expect(weakService != nil)
        }
        #expect(weakService == nil)
    }

    @Test func aContainerDoesNotKeepItsCollaboratorsAlive() {
        let cart = Container(name: "cart")
        weak var weakCatalog: Container?
        do {
            let catalog = Container(name: "catalog")
            weakCatalog = catalog
            cart.collaborate(with: catalog)
            #expect(cart.collaborators.map(\.name) == ["catalog"])
        }
        #expect(weakCatalog == nil)
        #expect(cart.collaborators.isEmpty)
    }

    @Test func twoContainersThatCollaborateWithEachOtherDoNotLeak() {
        weak var weakA: Container?
        weak var weakB: Container?
        do {
            let a = Container(name: "a")
            let b = Container(name: "b")
            weakA = a
            weakB = b
            a.collaborateBothWays(with: b)
        }
        #expect(weakA == nil)
        #expect(weakB == nil)
    }

    @Test func siblingsThatCollaborateWithEachOtherDoNotLeakOrKeepTheParentAlive() {
        weak var weakRoot: Container?
        weak var weakA: Container?
        do {
            let root = Container(name: "app")
            weakRoot = root
            let a = root.makeChild(name: "a")
            let b = root.makeChild(name: "b")
            weakA = a
            a.collaborateBothWays(with: b)
        }
        #expect(weakA == nil)
        #expect(weakRoot == nil)
    }

    @Test func collaboratorsAreListedInLinkOrder() {
        let a = Container(name: "a")
        let b = Container(name: "b")
        let c = Container(name: "c")
        let d = Container(name: "d")
        a.collaborate(with: c, b)
        a.collaborate(with: [d])
        #expect(a.collaborators.map(\.name) == ["c", "b", "d"])
    }

    @Test func linkingAContainerWithItselfIsIgnored() {
        let a = Container(name: "a")
        a.collaborate(with: a)
        a.collaborate(with: [a])
        #expect(a.collaborators.isEmpty)
    }

    @Test func linkingTheSamePairTwiceIsIgnored() {
        let a = Container(name: "a")
        let b = Container(name: "b")
        let c = Container(name: "c")
        a.collaborate(with: b)
        a.collaborate(with: c, b)
        a.collaborate(with: [b, b])
        #expect(a.collaborators.map(\.name) == ["b", "c"])
    }

    @Test func collaborationIsOneWay() {
        let a = Container(name: "a")
        let b = Container(name: "b")
        a.collaborate(with: b)
        #expect(a.collaborators.map(\.name) == ["b"])
        #expect(b.collaborators.isEmpty)
    }
}
