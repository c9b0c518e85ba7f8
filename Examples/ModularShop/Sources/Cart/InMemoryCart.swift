import ShopInterfaces
import Synchronization

/// The cart: the products picked so far, checked against the catalog.
final class InMemoryCart: ShoppingCart {
    private let catalog: any ProductCatalog
    private let logger: any ShopLogger
    private let picked = Mutex<[Product]>([])

    /// Creates an empty cart.
    init(catalog: any ProductCatalog, logger: any ShopLogger) {
        self.catalog = catalog
        self.logger = logger
        logger.log("cart: created")
    }

    var items: [Product] { picked.withLock { $0 } }

    func add(_ name: String) throws {
        guard let product = catalog.product(named: name) else { throw ShopError.unknownProduct(name) }
        picked.withLock { $0.append(product) }
        logger.log("cart: added \(name)")
    }

    func contains(_ product: Product) -> Bool {
        picked.withLock { $0.contains(product) }
    }

    func removeAll() {
        picked.withLock { $0.removeAll() }
    }
}
