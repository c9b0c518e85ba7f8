import ScopeGraph
import Testing

// Examples from the guides in Docs/, so that the build checks them and the tests check what the
// guides say they do. Each test names the guide and section it mirrors; keep them in sync.

@Suite struct GuideExamplesTests {
    enum Theme { case light, dark }
    final class Renderer: Sendable {
        let theme: Theme
        init(theme: Theme) { self.theme = theme }
    }
    struct Screen { let theme: Theme }
    final class Session: Sendable {
        let owner: String
        init(owner: String) { self.owner = owner }
    }
    final class Parent: Sendable {
        let child: Child
        init(child: Child) { self.child = child }
    }
    final class Child: @unchecked Sendable {
        // @unchecked: `parent` is set once, by onResolved, before the container publishes the instance.
        weak var parent: Parent?
    }

    /// Docs/Lifetimes.md, "Owner-rooted resolution".
    @Test func singletonResolvesFromItsOwnerWhileGraphResolvesFromTheChild() throws {
        let app = Container(name: "app")
        let feature = app.makeChild(name: "feature")

        app.register(Theme.self) { _ in Theme.light }
        feature.register(Theme.self) { _ in Theme.dark }

        app.register(Renderer.self, lifetime: .singleton) { r in Renderer(theme: try r.resolve()) }
        app.register(Screen.self) { r in Screen(theme: try r.resolve()) }

        let renderer = try feature.resolve(Renderer.self)
        let screen = try feature.resolve(Screen.self)
        #expect(renderer.theme == .light)
        #expect(screen.theme == .dark)
    }

    /// Docs/Lifetimes.md, "perContainer".
    @Test func perContainerGivesOneInstancePerStartingContainer() throws {
        let app = Container(name: "app")
        let catalog = app.makeChild(name: "catalog")
        let cart = app.makeChild(name: "cart")
        app.register(Session.self, lifetime: .perContainer) { r in Session(owner: r.container.name) }

        let a = try catalog.resolve(Session.self)
        let b = try catalog.resolve(Session.self)
        let c = try cart.resolve(Session.self)
        #expect(a === b)
        #expect(c !== a)
        #expect([a.owner, c.owner] == ["catalog", "cart"])
    }

    /// Docs/CircularDependencies.md, "Constructor cycles are errors" and "Property cycles resolve
    /// with onResolved".
    @Test func constructorCycleThrowsWithPathAndPropertyCycleResolves() throws {
        let broken = Container()
        broken.register(Parent.self) { r in Parent(child: try r.resolve()) }
        broken.register(Child.self) { r in
            _ = try r.resolve(Parent.self)
            return Child()
        }
        let error = try #require(throws: ResolutionError.self) { try broken.resolve(Parent.self) }
        #expect(error.path.map(\.description) == ["Parent", "Child", "Parent"])
        #expect(error.description.contains("circular dependency"))

        let container = Container()
        container.register(Parent.self, lifetime: .singleton) { r in Parent(child: try r.resolve()) }
        container.register(Child.self, lifetime: .singleton) { _ in Child() }
            .onResolved { r, child in child.parent = try r.resolve() }
        let parent = try container.resolve(Parent.self)
        #expect(parent.child.parent === parent)
    }
}
