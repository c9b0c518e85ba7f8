import Synchronization

/// Where placed orders are kept: the checkout feature's store, opened with `await`.
///
/// An `eagerSingleton` with an async factory (see `CheckoutModule`): `bootstrapAsync()` opens it
/// before anything resolves, and from then on synchronous resolves (such as the one that builds
/// `Checkout`) get the open store from the cache. A synchronous resolve before that would throw
/// `ResolutionError` `.requiresAsync`.
final class OrderStore: Sendable {
    /// The store's name, as given to `open(_:logger:)`.
    let name: String
    private let orders: Mutex<[Order]>

    /// The orders the demo's store finds "on disk" when it opens.
    static let onDisk = [
        Order(number: 1040, itemCount: 1, total: 960, currency: "EUR"),
        Order(number: 1041, itemCount: 3, total: 6_288, currency: "EUR"),
    ]

    private init(name: String, orders: [Order]) {
        self.name = name
        self.orders = Mutex(orders)
    }

    /// Opens the store: waits for the (simulated) disk read, then loads the orders on file.
    /// - Parameters:
    ///   - name: The store's name.
    ///   - logger: Where the opening is announced.
    /// - Returns: The open store.
    /// - Throws: `CancellationError` when the opening task is cancelled.
    static func open(_ name: String, logger: Logger) async throws -> OrderStore {
        try await Task.sleep(for: .milliseconds(10))
        let store = OrderStore(name: name, orders: onDisk)
        logger.log("order store '\(name)' opened: \(store.count) orders on file")
        return store
    }

    /// Saves an order under the next order number.
    /// - Parameters:
    ///   - itemCount: How many products were bought.
    ///   - total: The total with tax, in cents.
    ///   - currency: The currency of `total`.
    /// - Returns: The order as saved, with its number.
    func save(itemCount: Int, total: Int, currency: String) -> Order {
        orders.withLock { orders in
            let order = Order(
                number: (orders.last?.number ?? 1000) + 1, itemCount: itemCount, total: total, currency: currency)
            orders.append(order)
            return order
        }
    }

    /// How many orders the store holds.
    var count: Int { orders.withLock { $0.count } }

    /// The most recent order, if any.
    var latest: Order? { orders.withLock { $0.last } }
}
