import ScopeGraph

/// The demo app's containers. The composition root (`main.swift`) owns this value: each child
/// keeps the core alive, while the core tracks its children weakly and collaboration links keep
/// nothing alive, so dropping `AppContainers` frees the whole tree.
///
/// ```
/// app                      CoreModule: Logger, AppConfig, Telemetry (eager), Session (perContainer)
/// ├── catalog  ⇄  cart     CatalogModule, CartModule: Catalog and Cart, linked both ways
/// ├── checkout  →  cart    CheckoutModule: OrderStore (eager, opened with await), Checkout
/// └── shell  →  catalog, cart, checkout
///                          ShellModule: App, the entry point; CheckoutViewModel (main actor)
/// ```
struct AppContainers {
    /// The core container, named "app": services every feature shares.
    let core: Container
    /// The catalog feature.
    let catalog: Container
    /// The cart feature.
    let cart: Container
    /// The checkout feature.
    let checkout: Container
    /// The shell: registers the entry point and sees every feature.
    let shell: Container
}

/// Builds the container tree, one module per container, and links the features.
/// - Parameters:
///   - options: With `breaksComposition`, 'checkout' is not linked to 'cart'.
///   - logger: Where the services log.
/// - Returns: The containers; the caller keeps them alive.
func composeApp(_ options: DemoOptions, logger: Logger) -> AppContainers {
    let core = Container(
        name: "app", modules: CoreModule(logger: logger, config: AppConfig(currency: "EUR", taxRate: 0.2)))
    let containers = AppContainers(
        core: core,
        catalog: core.makeChild(name: "catalog", modules: CatalogModule(products: demoProducts)),
        cart: core.makeChild(name: "cart", modules: CartModule()),
        checkout: core.makeChild(name: "checkout", modules: CheckoutModule()),
        shell: core.makeChild(name: "shell", modules: ShellModule())
    )
    linkFeatures(containers, breaksComposition: options.breaksComposition)
    return containers
}

/// Links the features. Links are one-way: `catalog ⇄ cart` needs both calls.
/// - Parameters:
///   - containers: The app's containers.
///   - breaksComposition: Leave out the `checkout → cart` link, so that resolving the app fails.
func linkFeatures(_ containers: AppContainers, breaksComposition: Bool) {
    containers.catalog.collaborate(with: containers.cart)
    containers.cart.collaborate(with: containers.catalog)
    if !breaksComposition {
        containers.checkout.collaborate(with: containers.cart)
    }
    containers.shell.collaborate(with: containers.catalog, containers.cart, containers.checkout)
}

/// What the demo's catalog sells.
let demoProducts = [
    Product(name: "Espresso beans", price: 1_450),
    Product(name: "Milk frother", price: 2_990),
    Product(name: "Ceramic cup", price: 800),
]
