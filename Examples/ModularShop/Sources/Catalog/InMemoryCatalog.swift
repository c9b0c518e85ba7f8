import ShopInterfaces
import Synchronization

/// The catalog: a fixed list of products, and a weak reference to the cart so that the listing
/// can mark what the user already picked.
///
/// The reference is weak because the cycle's strong edge goes the other way (the cart keeps the
/// catalog); both are singletons kept by their containers.
final class InMemoryCatalog: ProductCatalog {
    let products: [Product]
    private let config: ShopConfig
    private let logger: any ShopLogger
    private let cart = Mutex(WeakCart())

    /// Creates the catalog; the cart is attached afterwards by the registration's `onResolved`.
    init(products: [Product], config: ShopConfig, logger: any ShopLogger) {
        self.products = products
        self.config = config
        self.logger = logger
        logger.log("catalog: created with \(products.count) products")
    }

    /// Sets the back reference to the cart (the property half of the Catalog/Cart cycle).
    func attach(cart: any ShoppingCart) {
        self.cart.withLock { $0.value = cart }
    }

    func product(named name: String) -> Product? {
        products.first { $0.name == name }
    }

    func listing() -> [String] {
        let cart = self.cart.withLock { $0.value }
        let width = products.map(\.name.count).max() ?? 0
        return products.map { product in
            let mark = cart?.contains(product) == true ? "[in cart] " : "          "
            let padding = String(repeating: " ", count: width - product.name.count)
            return mark + product.name + padding + "  " + config.format(product.price)
        }
    }
}

/// A weak reference to the cart, the state of the catalog's mutex.
private struct WeakCart {
    weak var value: (any ShoppingCart)?
}
