/// A product the catalog sells.
struct Product: Sendable, Equatable {
    /// The product's name.
    let name: String
    /// The price in cents.
    let price: Int
}

/// The catalog feature: lists products and marks the ones already in the cart.
///
/// `Catalog` and `Cart` depend on each other. `Cart` takes the catalog in its initializer;
/// the catalog gets the cart afterwards, through the `onResolved` block of its registration
/// (see `CatalogModule`). The back reference is weak: both are singletons kept
/// by their containers, and the strong edge goes from cart to catalog.
final class Catalog {
    /// Everything for sale.
    let products: [Product]
    /// Set by the registration's `onResolved` block, after both objects exist.
    weak var cart: Cart?
    private let telemetry: Telemetry

    /// Creates the catalog.
    /// - Parameters:
    ///   - products: Everything for sale.
    ///   - telemetry: Where browsing events go.
    init(products: [Product], telemetry: Telemetry) {
        self.products = products
        self.telemetry = telemetry
    }

    /// The product with the given name, if the catalog has it.
    /// - Parameter name: The product's name.
    /// - Returns: The product, or `nil`.
    func product(named name: String) -> Product? {
        telemetry.record("catalog.lookup")
        return products.first { $0.name == name }
    }

    /// The product list, each line marked when the product is already in the cart.
    /// - Returns: One line per product.
    func listing() -> [String] {
        products.map { product in
            let inCart = cart?.contains(product) ?? false
            return (inCart ? "[in cart] " : "          ") + product.name
        }
    }
}
