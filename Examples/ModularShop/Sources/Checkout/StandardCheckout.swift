import ShopInterfaces

/// Places orders for the cart's items, adding the configured tax, and records them in the
/// session of the container the checkout was resolved from.
struct StandardCheckout: CheckoutService {
    let cart: any ShoppingCart
    let session: SessionOrders
    let config: ShopConfig
    let logger: any ShopLogger

    func placeOrder() throws -> Order {
        let items = cart.items
        guard !items.isEmpty else { throw ShopError.emptyCart }
        let subtotal = items.reduce(0) { $0 + $1.price }
        let tax = config.tax(on: subtotal)
        let order = session.record { number in
            Order(number: number, session: session.name, items: items, subtotal: subtotal, tax: tax)
        }
        cart.removeAll()
        logger.log("checkout: \(session.name) placed order #\(order.number), \(config.format(order.total))")
        return order
    }
}
