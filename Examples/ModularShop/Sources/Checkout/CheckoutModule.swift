import ScopeGraph
import ShopInterfaces

/// The checkout feature's registrations, installed by the composition root into the feature's
/// own container.
///
/// `CheckoutSession` is `perContainer`: each container a resolve starts from gets its own
/// session, so the composition root opens a session by making a child of the checkout container
/// and resolving from it. `CheckoutService` is `graph` (the default), so each resolve builds one
/// that takes the session of the container the resolve started from; a `singleton` would instead
/// resolve from the container that owns it and always take the checkout container's own session.
///
/// Needs, from elsewhere in the tree: `any ShopLogger`, `ShopConfig`, `any ShoppingCart`.
public struct CheckoutModule: ContainerModule {
    /// Creates the module.
    public init() {}

    /// Registers the per-session `CheckoutSession` and the `CheckoutService`.
    /// - Parameter container: The checkout feature's container.
    public func register(in container: Container) {
        // `r.container` is where the request started: the session belongs to that container.
        container.register(SessionOrders.self, lifetime: .perContainer) { r in SessionOrders(name: r.container.name) }
            .implements((any CheckoutSession).self)
        container.autoregister((any CheckoutService).self, initializer: StandardCheckout.init)
    }
}
