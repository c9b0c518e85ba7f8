import ShopInterfaces
import Synchronization

/// A cart that holds whatever the test gives it, standing in for the Cart feature.
final class FakeCart: ShoppingCart {
    private let held: Mutex<[Product]>

    /// Creates a cart holding `items`.
    init(items: [Product] = []) { held = Mutex(items) }

    var items: [Product] { held.withLock { $0 } }

    /// Puts a product in the cart, as the real cart's `add(_:)` does after finding it.
    func put(_ product: Product) { held.withLock { $0.append(product) } }

    /// Adds a product of that name priced at 1.00, as a fake knows no catalog.
    func add(_ name: String) throws { put(Product(name: name, price: 100)) }

    func contains(_ product: Product) -> Bool { held.withLock { $0.contains(product) } }

    func removeAll() { held.withLock { $0.removeAll() } }
}
