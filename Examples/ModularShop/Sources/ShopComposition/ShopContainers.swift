import Cart
import Catalog
import Checkout
import ScopeGraph
import ShopInterfaces

/// The shop's container tree: the composition root, and the only code that imports every
/// feature module.
///
/// ```
/// app                       CoreModule: any ShopLogger, ShopConfig
/// ├── catalog  ⇄  cart      CatalogModule, CartModule: ProductCatalog and ShoppingCart, in a
/// │                         cycle broken by the catalog's onResolved
/// └── checkout  →  cart     CheckoutModule: CheckoutService, CheckoutSession (perContainer)
///     └── session-1, …      one child per checkout session, from makeSession(name:)
/// ```
///
/// Whoever composes the shop owns this value: each child keeps the core alive, while the core
/// tracks its children weakly and collaboration links keep nothing alive, so dropping the value
/// (and the sessions) frees the whole tree.
public struct ShopContainers: Sendable {
    /// The core container, named "app": the services every feature shares.
    public let core: Container
    /// The catalog feature's container.
    public let catalog: Container
    /// The cart feature's container.
    public let cart: Container
    /// The checkout feature's container; sessions are its children.
    public let checkout: Container
    /// The settings registered in the core: currency and tax rate.
    public let config: ShopConfig

    /// What the sample shop sells.
    public static let sampleProducts = [
        Product(name: "Espresso beans", price: 1_450),
        Product(name: "Milk frother", price: 2_990),
        Product(name: "Ceramic cup", price: 800),
    ]

    /// The sample shop's settings: euros, 20 % tax.
    public static let sampleConfig = ShopConfig(currency: "EUR", taxPercent: 20)

    /// Builds the tree: the core, one child per feature with that feature's module, and the
    /// collaboration links between the features that need each other.
    /// - Parameters:
    ///   - logger: Where every service logs.
    ///   - config: Currency and tax rate.
    ///   - products: What the catalog sells.
    public init(
        logger: any ShopLogger, config: ShopConfig = sampleConfig, products: [Product] = sampleProducts
    ) {
        self.config = config
        core = Container(name: "app", modules: CoreModule(logger: logger, config: config))
        catalog = core.makeChild(name: "catalog", modules: CatalogModule(products: products))
        cart = core.makeChild(name: "cart", modules: CartModule())
        checkout = core.makeChild(name: "checkout", modules: CheckoutModule())
        // Links are one-way: the cycle needs both directions; checkout only needs the cart.
        catalog.collaborate(with: cart)
        cart.collaborate(with: catalog)
        checkout.collaborate(with: cart)
    }

    /// Opens a checkout session: a child of the checkout container, which gets its own
    /// `CheckoutSession` (a `perContainer` service) and sees everything checkout sees.
    /// - Parameter name: The session's name, which its `CheckoutSession` reports.
    /// - Returns: The session's container; the caller keeps it for as long as the session runs.
    public func makeSession(name: String) -> Container {
        checkout.makeChild(name: name)
    }

    /// Dry-runs every registration of the tree (the core and all its descendants, sessions
    /// included); the app runs it at start-up and refuses to start when it is not valid.
    /// - Returns: Every problem found; `isValid` is `false` when one of them is an error.
    public func validate() -> ValidationReport {
        core.validate()
    }
}
