/// A placed order.
struct Order: Sendable {
    /// The number the `OrderStore` gave it.
    let number: Int
    /// How many products were bought.
    let itemCount: Int
    /// The total with tax, in cents.
    let total: Int
    /// The currency of `total`.
    let currency: String
}

/// The checkout feature: turns the cart into an order and saves it in the `OrderStore`.
///
/// A synchronous singleton that needs the async-built store: its resolve finds the store in
/// the cache, since `bootstrapAsync()` opened it first.
final class Checkout {
    /// The cart being checked out.
    let cart: Cart
    /// The checkout feature's own session (`perContainer`, created for the 'checkout' container).
    let session: Session
    /// Where placed orders are saved.
    let store: OrderStore
    private let config: AppConfig
    private let logger: Logger
    private let telemetry: Telemetry

    /// Creates the checkout.
    /// - Parameters:
    ///   - cart: The cart being checked out.
    ///   - session: The checkout feature's session.
    ///   - store: Where placed orders are saved.
    ///   - config: Currency and tax rate.
    ///   - logger: Where the order is logged.
    ///   - telemetry: Where checkout events go.
    init(cart: Cart, session: Session, store: OrderStore, config: AppConfig, logger: Logger, telemetry: Telemetry) {
        self.cart = cart
        self.session = session
        self.store = store
        self.config = config
        self.logger = logger
        self.telemetry = telemetry
    }

    /// Places the order for everything in the cart and saves it in the store.
    /// - Returns: The order, numbered by the store.
    func placeOrder() -> Order {
        let total = Int((Double(cart.subtotal) * (1 + config.taxRate)).rounded())
        telemetry.record("checkout.order")
        let order = store.save(itemCount: cart.items.count, total: total, currency: config.currency)
        logger.log(
            "order #\(order.number) placed: \(order.itemCount) items, \(formatCents(order.total)) \(order.currency)")
        return order
    }
}

/// `1234` as `"12.34"`.
/// - Parameter cents: An amount in cents.
/// - Returns: The amount with two decimals.
func formatCents(_ cents: Int) -> String {
    let fraction = cents % 100
    return "\(cents / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
}
