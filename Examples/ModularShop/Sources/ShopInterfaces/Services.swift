// The protocols the features expose to each other. A feature module implements some of them with
// internal types and registers those in its `ContainerModule`; it depends on another feature only
// through these protocols, resolved from the container, never by importing that feature.

/// Where the services write what they do. Provided by the composition root.
public protocol ShopLogger: Sendable {
    /// Records one line.
    /// - Parameter line: What happened.
    func log(_ line: String)
}

/// The products for sale. Implemented by the `Catalog` feature.
public protocol ProductCatalog: AnyObject, Sendable {
    /// Everything for sale, in display order.
    var products: [Product] { get }

    /// The product with the given name.
    /// - Parameter name: The product's name.
    /// - Returns: The product, or `nil` when the catalog does not sell it.
    func product(named name: String) -> Product?

    /// One line per product, marking the ones already in the cart.
    /// - Returns: The lines, in display order.
    func listing() -> [String]
}

/// The products the user picked. Implemented by the `Cart` feature.
public protocol ShoppingCart: AnyObject, Sendable {
    /// The products picked so far, in order.
    var items: [Product] { get }

    /// Adds the catalog's product of that name.
    /// - Parameter name: The product's name.
    /// - Throws: `ShopError.unknownProduct` when the catalog does not sell it.
    func add(_ name: String) throws

    /// Whether the cart holds the product.
    /// - Parameter product: The product to look for.
    /// - Returns: `true` when it was added and not yet checked out.
    func contains(_ product: Product) -> Bool

    /// Empties the cart, once its items are ordered.
    func removeAll()
}

extension ShoppingCart {
    /// The sum of the items' prices, in cents.
    public var subtotal: Int { items.reduce(0) { $0 + $1.price } }
}

/// Places orders. Implemented by the `Checkout` feature.
public protocol CheckoutService: Sendable {
    /// Orders everything in the cart, records the order in the current session and empties the
    /// cart.
    /// - Returns: The order.
    /// - Throws: `ShopError.emptyCart` when there is nothing to order.
    func placeOrder() throws -> Order
}

/// One checkout session's state: the orders placed in it. Implemented by the `Checkout` feature,
/// one instance per session container.
public protocol CheckoutSession: AnyObject, Sendable {
    /// The name of the session, which is the name of its container.
    var name: String { get }
    /// The orders placed in this session, oldest first.
    var orders: [Order] { get }
}
