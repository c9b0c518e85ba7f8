import ScopeGraph
import ShopInterfaces

/// The cart feature's registrations, installed by the composition root into the feature's own
/// container.
///
/// The cart takes the catalog in its initializer: the constructor half of the Catalog/Cart
/// cycle (the catalog's half is a property, set by the catalog module's `onResolved`). The
/// catalog is found through a collaboration link: this module names only the `ProductCatalog`
/// protocol.
///
/// Needs, from elsewhere in the tree: `any ShopLogger`, `any ProductCatalog`.
public struct CartModule: ContainerModule {
    /// Creates the module.
    public init() {}

    /// Registers the cart, a singleton that answers for `any ShoppingCart`.
    /// - Parameter container: The cart feature's container.
    public func register(in container: Container) {
        container.autoregister((any ShoppingCart).self, lifetime: .singleton, initializer: InMemoryCart.init)
    }
}
