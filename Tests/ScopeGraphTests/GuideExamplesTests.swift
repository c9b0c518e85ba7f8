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
    protocol Logger: AnyObject, Sendable {}
    final class ConsoleLogger: Logger {}
    final class Catalog: @unchecked Sendable {
        // @unchecked: `cart` is set once, by onResolved, before the container publishes the instance.
        let logger: any Logger
        weak var cart: Cart?
        init(logger: any Logger) { self.logger = logger }
    }
    final class Cart: Sendable {
        let catalog: Catalog
        init(catalog: Catalog) { self.catalog = catalog }
    }
    /// The shop of Docs/Diagnostics.md, whose `Cart` and `Checkout` need each other.
    enum Shop {
        final class Catalog: Sendable {}
        final class Cart: @unchecked Sendable {
            // @unchecked: `checkout` is set once, by onResolved, before the container publishes the instance.
            let catalog: Catalog
            weak var checkout: Checkout?
            init(catalog: Catalog) { self.catalog = catalog }
        }
        final class Checkout: Sendable {
            let cart: Cart
            init(cart: Cart) { self.cart = cart }
        }
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

    /// Docs/GettingStarted.md, "Feature containers" and "Property injection and cycles": `Cart`
    /// takes `Catalog` in its initializer, `Catalog` gets `Cart` by property; each is built once.
    @Test func featureSiblingsCloseTheCatalogCartCycleWithOnResolved() throws {
        let app = Container(name: "app")
        app.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            .implements(Logger.self)
        let catalogBuilds = Counter()
        let cartBuilds = Counter()

        let catalog = app.makeChild(name: "catalog")
        let cart = app.makeChild(name: "cart")
        cart.collaborate(with: catalog)
        cart.register(Cart.self, lifetime: .singleton) { r in
            cartBuilds.increment()
            return Cart(catalog: try r.resolve())
        }
        catalog.register(Catalog.self, lifetime: .singleton) { r in
            catalogBuilds.increment()
            return Catalog(logger: try r.resolve())
        }
        .onResolved { r, catalog in catalog.cart = try r.resolve(Cart.self) }
        catalog.collaborate(with: cart)

        let shoppingCart = try cart.resolve(Cart.self)
        #expect(shoppingCart.catalog.cart === shoppingCart)
        #expect(try catalog.resolve(Catalog.self) === shoppingCart.catalog)
        #expect([catalogBuilds.value, cartBuilds.value] == [1, 1])
    }

    /// Docs/Diagnostics.md, "Circular dependency": the fix, with `Cart` taking `Checkout` in
    /// `onResolved`, validates clean and resolves one pair.
    @Test func theCartCheckoutCycleBrokenWithOnResolvedValidatesClean() throws {
        let app = Container(name: "app")
        app.register(Shop.Catalog.self, lifetime: .singleton) { _ in Shop.Catalog() }
        let cart = app.makeChild(name: "cart")
        let checkout = app.makeChild(name: "checkout")
        cart.collaborate(with: checkout)
        checkout.collaborate(with: cart)

        cart.register(Shop.Cart.self, lifetime: .singleton) { r in Shop.Cart(catalog: try r.resolve()) }
            .onResolved { r, cart in cart.checkout = try r.resolve() }
        checkout.register(Shop.Checkout.self, lifetime: .singleton) { r in Shop.Checkout(cart: try r.resolve()) }

        let report = app.validate()
        #expect(report.isValid)
        #expect(report.issues.isEmpty)
        let resolved = try checkout.resolve(Shop.Checkout.self)
        #expect(resolved.cart.checkout === resolved)
        #expect(try cart.resolve(Shop.Cart.self) === resolved.cart)
    }
}
