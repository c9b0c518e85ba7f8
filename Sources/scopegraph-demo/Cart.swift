/// The cart feature: the products the user picked.
///
/// Needs the `Catalog` in its initializer (the constructor edge of the Catalog/Cart cycle).
final class Cart {
    /// The catalog the cart takes its products from.
    let catalog: Catalog
    /// The products picked so far, in order.
    private(set) var items: [Product] = []
    private let telemetry: Telemetry

    /// Creates the cart.
    /// - Parameters:
    ///   - catalog: The catalog the cart takes its products from.
    ///   - telemetry: Where cart events go.
    init(catalog: Catalog, telemetry: Telemetry) {
        self.catalog = catalog
        self.telemetry = telemetry
    }

    /// Adds the catalog's product of that name.
    /// - Parameter name: The product's name.
    /// - Returns: `false` when the catalog has no such product.
    @discardableResult
    func add(_ name: String) -> Bool {
        guard let product = catalog.product(named: name) else { return false }
        items.append(product)
        telemetry.record("cart.add")
        return true
    }

    /// Whether the cart holds the product.
    /// - Parameter product: The product to look for.
    /// - Returns: `true` when it was added.
    func contains(_ product: Product) -> Bool { items.contains(product) }

    /// The sum of the prices, in cents.
    var subtotal: Int { items.reduce(0) { $0 + $1.price } }
}
