// The values the features pass to each other. Plain Swift: nothing here knows about ScopeGraph.

/// A product the shop sells.
public struct Product: Sendable, Hashable {
    /// The product's name, unique within a catalog.
    public let name: String
    /// The price in cents.
    public let price: Int

    /// Creates a product.
    /// - Parameters:
    ///   - name: The product's name, unique within a catalog.
    ///   - price: The price in cents.
    public init(name: String, price: Int) {
        self.name = name
        self.price = price
    }
}

/// An order placed at checkout.
public struct Order: Sendable, Equatable {
    /// The order's number within its checkout session, from 1.
    public let number: Int
    /// The name of the session that placed it.
    public let session: String
    /// What was bought, in the order the products were added.
    public let items: [Product]
    /// The sum of the prices, in cents.
    public let subtotal: Int
    /// The tax, in cents.
    public let tax: Int

    /// The amount charged, in cents.
    public var total: Int { subtotal + tax }

    /// Creates an order.
    /// - Parameters:
    ///   - number: The order's number within its session.
    ///   - session: The name of the session that placed it.
    ///   - items: What was bought.
    ///   - subtotal: The sum of the prices, in cents.
    ///   - tax: The tax, in cents.
    public init(number: Int, session: String, items: [Product], subtotal: Int, tax: Int) {
        self.number = number
        self.session = session
        self.items = items
        self.subtotal = subtotal
        self.tax = tax
    }
}

/// Settings every feature reads, provided by the composition root.
public struct ShopConfig: Sendable, Equatable {
    /// The currency code printed before amounts.
    public let currency: String
    /// The tax rate, in percent of the subtotal.
    public let taxPercent: Int

    /// Creates the settings.
    /// - Parameters:
    ///   - currency: The currency code printed before amounts.
    ///   - taxPercent: The tax rate, in percent of the subtotal.
    public init(currency: String, taxPercent: Int) {
        self.currency = currency
        self.taxPercent = taxPercent
    }

    /// The tax on an amount, rounded down to the cent.
    /// - Parameter cents: The amount, in cents.
    /// - Returns: The tax, in cents.
    public func tax(on cents: Int) -> Int { cents * taxPercent / 100 }

    /// An amount as text, such as `EUR 14.50`.
    /// - Parameter cents: The amount, in cents.
    /// - Returns: The currency code and the amount with two decimals.
    public func format(_ cents: Int) -> String {
        let fraction = cents % 100
        return "\(currency) \(cents / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// What can go wrong in the shop's features.
public enum ShopError: Error, Equatable, CustomStringConvertible {
    /// The catalog has no product of that name.
    case unknownProduct(String)
    /// Checkout was asked to place an order for an empty cart.
    case emptyCart

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .unknownProduct(let name): "the catalog has no product named '\(name)'"
        case .emptyCart: "the cart is empty"
        }
    }
}
