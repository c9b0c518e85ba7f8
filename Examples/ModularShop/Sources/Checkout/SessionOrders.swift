import ShopInterfaces
import Synchronization

/// One checkout session: the orders placed in it, numbered from 1.
final class SessionOrders: CheckoutSession {
    let name: String
    private let placed = Mutex<[Order]>([])

    /// Creates an empty session.
    init(name: String) { self.name = name }

    var orders: [Order] { placed.withLock { $0 } }

    /// Numbers and records a new order.
    /// - Parameter makeOrder: Builds the order from its number.
    /// - Returns: The recorded order.
    func record(_ makeOrder: (Int) -> Order) -> Order {
        placed.withLock { orders in
            let order = makeOrder(orders.count + 1)
            orders.append(order)
            return order
        }
    }
}
