/// The checkout screen's view model: a main-actor type, as UI code is.
///
/// Registered with `mainActorFactory:` in the shell (see `ShellModule`). Resolved synchronously
/// on the main actor, its factory runs inline; off the main actor a synchronous resolve throws
/// `ResolutionError` `.requiresMainActor`, and `resolveAsync` hops to the main actor to build
/// it. It depends on ordinary services (`Cart`, `AppConfig`) and on the async-built
/// `OrderStore`, which `bootstrapAsync()` has opened by then.
@MainActor
final class CheckoutViewModel {
    /// The cart shown on the screen.
    let cart: Cart
    /// Where the placed orders are.
    let store: OrderStore
    private let config: AppConfig

    /// Creates the view model.
    /// - Parameters:
    ///   - cart: The cart shown on the screen.
    ///   - store: Where the placed orders are.
    ///   - config: The currency and tax rate the screen shows.
    init(cart: Cart, store: OrderStore, config: AppConfig) {
        self.cart = cart
        self.store = store
        self.config = config
    }

    /// The screen's title: what the cart holds.
    var title: String {
        "Checkout: \(cart.items.count) items, subtotal \(formatCents(cart.subtotal)) \(config.currency)"
    }

    /// The screen's status line: the latest order in the store.
    var status: String {
        guard let order = store.latest else { return "No orders in '\(store.name)' yet" }
        return "Latest order #\(order.number): \(formatCents(order.total)) \(order.currency) "
            + "(\(store.count) orders in '\(store.name)')"
    }
}
