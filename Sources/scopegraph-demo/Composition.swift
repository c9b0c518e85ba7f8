import ScopeGraph

/// The demo app's containers. The composition root (`main.swift`) owns this value: each child
/// keeps the core alive, while the core tracks its children weakly and collaboration links keep
/// nothing alive, so dropping `AppContainers` frees the whole tree.
///
/// ```
/// app                      Logger, AppConfig, Telemetry (eager), Session (perContainer)
/// ├── catalog  ⇄  cart     Catalog and Cart, linked both ways
/// ├── checkout  →  cart    Checkout
/// └── shell  →  catalog, cart, checkout
///                          App, the entry point
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

/// Builds the container tree, registers every feature and links the features.
/// - Parameter options: With `breaksComposition`, 'checkout' is not linked to 'cart'.
/// - Returns: The containers; the caller keeps them alive.
func composeApp(_ options: DemoOptions) -> AppContainers {
    let core = Container(name: "app")
    registerCoreServices(in: core)

    let containers = AppContainers(
        core: core,
        catalog: core.makeChild(name: "catalog"),
        cart: core.makeChild(name: "cart"),
        checkout: core.makeChild(name: "checkout"),
        shell: core.makeChild(name: "shell")
    )
    registerCatalogFeature(in: containers.catalog)
    registerCartFeature(in: containers.cart)
    registerCheckoutFeature(in: containers.checkout)
    registerShell(in: containers.shell)
    linkFeatures(containers, breaksComposition: options.breaksComposition)
    return containers
}

/// The core: a logger and a config shared by everyone, telemetry started by `bootstrap()`, and
/// a session per container that a resolve starts from.
/// - Parameter core: The root container.
func registerCoreServices(in core: Container) {
    core.register(Logger.self, lifetime: .singleton) { _ in Logger(prefix: "[demo]") }
    core.register(AppConfig.self, lifetime: .singleton) { _ in AppConfig(currency: "EUR", taxRate: 0.2) }
    core.register(Telemetry.self, lifetime: .eagerSingleton) { r in Telemetry.start(logger: try r.resolve()) }
    // `r.container` is where this request started: the session belongs to that container.
    core.register(Session.self, lifetime: .perContainer) { r in Session(containerName: r.container.name) }
}

/// The catalog feature. Its half of the Catalog/Cart cycle is a property, set in `onResolved`:
/// the block runs after every factory of the resolve has returned, so the `Cart` it resolves
/// is the one built in the same resolve (or the cached one), never a second instance.
/// - Parameter catalog: The catalog feature's container.
func registerCatalogFeature(in catalog: Container) {
    catalog.register(Catalog.self, lifetime: .singleton) { r in
        Catalog(products: demoProducts, telemetry: try r.resolve())
    }
    .onResolved { r, catalog in catalog.cart = try r.resolve(Cart.self) }
}

/// The cart feature. Its half of the cycle is a constructor argument: `Cart` needs `Catalog`.
/// - Parameter cart: The cart feature's container.
func registerCartFeature(in cart: Container) {
    cart.register(Cart.self, lifetime: .singleton) { r in
        Cart(catalog: try r.resolve(), telemetry: try r.resolve())
    }
}

/// The checkout feature.
/// - Parameter checkout: The checkout feature's container.
func registerCheckoutFeature(in checkout: Container) {
    checkout.register(Checkout.self, lifetime: .singleton) { r in
        Checkout(
            cart: try r.resolve(), session: try r.resolve(), config: try r.resolve(),
            logger: try r.resolve(), telemetry: try r.resolve())
    }
}

/// The shell registers the entry point. `App` is a `graph` instance: a new one per resolve,
/// holding the features' singletons.
/// - Parameter shell: The shell's container.
func registerShell(in shell: Container) {
    shell.register(App.self) { r in
        App(
            catalog: try r.resolve(), cart: try r.resolve(), checkout: try r.resolve(),
            session: try r.resolve(), logger: try r.resolve())
    }
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
