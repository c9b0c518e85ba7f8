/// The entry point the demo resolves: it wires nothing itself, it receives every feature.
final class App {
    /// The catalog feature.
    let catalog: Catalog
    /// The cart feature.
    let cart: Cart
    /// The checkout feature.
    let checkout: Checkout
    /// The shell's own session (`perContainer`, created for the 'shell' container).
    let session: Session
    private let logger: Logger

    /// Creates the app.
    /// - Parameters:
    ///   - catalog: The catalog feature.
    ///   - cart: The cart feature.
    ///   - checkout: The checkout feature.
    ///   - session: The shell's session.
    ///   - logger: The shared logger.
    init(catalog: Catalog, cart: Cart, checkout: Checkout, session: Session, logger: Logger) {
        self.catalog = catalog
        self.cart = cart
        self.checkout = checkout
        self.session = session
        self.logger = logger
    }

    /// Runs a short shopping trip: browse, pick two products, check out.
    /// - Returns: The order placed.
    func run() -> Order {
        cart.add("Espresso beans")
        cart.add("Milk frother")
        for line in catalog.listing() { logger.log(line) }
        return checkout.placeOrder()
    }
}
