import ScopeGraph
import ShopInterfaces

/// The catalog feature's registrations, installed by the composition root into the feature's
/// own container.
///
/// The catalog and the cart depend on each other: the cart takes the catalog in its
/// initializer, and the catalog gets the cart afterwards, through the `onResolved` block below.
/// The block runs once the factories of the resolve have returned, so the cart it resolves is
/// the one built in the same resolve (or the cached one), and each factory runs once. The cart
/// is found through a collaboration link: this module names only the `ShoppingCart` protocol.
///
/// Needs, from elsewhere in the tree: `any ShopLogger`, `ShopConfig`, `any ShoppingCart`.
public struct CatalogModule: ContainerModule {
    /// Everything the catalog sells, in display order.
    public let products: [Product]

    /// Creates the module.
    /// - Parameter products: Everything the catalog sells, in display order.
    public init(products: [Product]) {
        self.products = products
    }

    /// Registers the catalog, a singleton that answers for `any ProductCatalog`.
    /// - Parameter container: The catalog feature's container.
    public func register(in container: Container) {
        container.register(InMemoryCatalog.self, lifetime: .singleton) { [products] r in
            InMemoryCatalog(products: products, config: try r.resolve(), logger: try r.resolve())
        }
        .implements((any ProductCatalog).self)
        .onResolved { r, catalog in catalog.attach(cart: try r.resolve()) }
    }
}
