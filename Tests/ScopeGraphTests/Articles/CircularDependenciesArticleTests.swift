import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Circular Dependencies article
// (Sources/ScopeGraph/ScopeGraph.docc/CircularDependencies.md), as the article shows it;
// Scripts/docs/check-articles.py fails when the two differ. A line that ends in
// `// hidden in the docs` is left out of the comparison. Each section's types are nested in a
// suite of its own, since the article uses the same names for different types.

@Suite struct CircularDependenciesArticleTests {
    @Suite struct ConstructorCycles {
        final class Parent: Sendable {
            let child: Child
            init(child: Child) { self.child = child }
        }
        final class Child: Sendable {
            let parent: Parent
            init(parent: Parent) { self.parent = parent }
        }

        @Test func aConstructorCycleThrowsWithThePath() throws {
            let container = Container()
            container.register(Parent.self) { r in Parent(child: try r.resolve()) }
            container.register(Child.self) { r in Child(parent: try r.resolve()) }

            let error = try #require(throws: ResolutionError.self) {  // hidden in the docs
                _ = try container.resolve(Parent.self)
            }  // hidden in the docs
            #expect(error.kind == .circularDependency)
            #expect(error.path.map(\.description) == ["Parent", "Child", "Parent"])
        }
    }

    @Suite struct PropertyCycles {
        final class Parent: Sendable {
            let child: Child
            init(child: Child) { self.child = child }
        }
        final class Child: @unchecked Sendable {
            // @unchecked: `parent` is set once, by onResolved, before the container publishes the instance.
            weak var parent: Parent?
        }

        @Test func aPropertyCycleResolvesWithOnResolved() throws {
            let container = Container()
            container.register(Parent.self, lifetime: .singleton) { r in Parent(child: try r.resolve()) }
            container.register(Child.self, lifetime: .singleton) { _ in Child() }
                .onResolved { r, child in child.parent = try r.resolve() }

            let parent = try container.resolve(Parent.self)  // parent.child.parent === parent
            #expect(parent.child.parent === parent)
        }
    }

    /// "The mixed cycle": the demo app's `Catalog` and `Cart`, in sibling containers linked both ways.
    @Suite struct MixedCycles {
        final class Telemetry: Sendable {}
        final class Catalog: @unchecked Sendable {
            // @unchecked: `cart` is set once, by onResolved, before the container publishes the instance.
            let products: [String]
            weak var cart: Cart?
            init(products: [String], telemetry: Telemetry) { self.products = products }
        }
        final class Cart: Sendable {
            let catalog: Catalog
            init(catalog: Catalog, telemetry: Telemetry) { self.catalog = catalog }
        }

        @Test(arguments: [true, false])
        func theMixedCycleResolvesFromEitherEnd(cartFirst: Bool) throws {
            let app = Container(name: "app")
            app.register(Telemetry.self, lifetime: .singleton) { _ in Telemetry() }
            let catalog = app.makeChild(name: "catalog")
            let cart = app.makeChild(name: "cart")
            let products = ["tea"]
            catalog.register(Catalog.self, lifetime: .singleton) { r in
                Catalog(products: products, telemetry: try r.resolve())
            }
            .onResolved { r, catalog in catalog.cart = try r.resolve(Cart.self) }

            cart.autoregister(Cart.self, lifetime: .singleton, initializer: Cart.init)  // Cart(catalog:telemetry:)
            catalog.collaborate(with: cart)
            cart.collaborate(with: catalog)

            if cartFirst {
                let shoppingCart = try cart.resolve(Cart.self)
                #expect(shoppingCart.catalog.cart === shoppingCart)
            } else {
                let shopCatalog = try catalog.resolve(Catalog.self)
                #expect(shopCatalog.cart?.catalog === shopCatalog)
            }
        }
    }
}
