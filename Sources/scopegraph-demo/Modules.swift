import ScopeGraph

// The demo's modules: what each layer or feature contributes to its container. The composition
// root (`composeApp(_:)`) installs each one into its own container and links the features.
// Where a factory would only resolve its initializer's parameters, the module uses
// `autoregister`; a factory stays where it needs something else (a value, the resolver).

/// The core services every feature shares: a logger and a config given by the composition root,
/// telemetry started by `bootstrapAsync()`, and a session per container that a resolve starts
/// from.
struct CoreModule: ContainerModule {
    /// The logger every service writes to.
    let logger: Logger
    /// Currency and tax rate.
    let config: AppConfig

    /// Registers the core services in `container` (the root, named "app").
    /// - Parameter container: The container the module is installed into.
    func register(in container: Container) {
        container.register(instance: logger)
        container.register(instance: config)
        container.autoregister(Telemetry.self, lifetime: .eagerSingleton, initializer: Telemetry.start)
        // `r.container` is where this request started: the session belongs to that container.
        container.register(Session.self, lifetime: .perContainer) { r in Session(containerName: r.container.name) }
    }
}

/// The catalog feature. Its half of the Catalog/Cart cycle is a property, set in `onResolved`:
/// the block runs after every factory of the resolve has returned, so the `Cart` it resolves is
/// the one built in the same resolve (or the cached one), never a second instance.
struct CatalogModule: ContainerModule {
    /// Everything the catalog sells.
    let products: [Product]

    /// Registers `Catalog` in the catalog feature's container.
    /// - Parameter container: The container the module is installed into.
    func register(in container: Container) {
        container.register(Catalog.self, lifetime: .singleton) { [products] r in
            Catalog(products: products, telemetry: try r.resolve())
        }
        .onResolved { r, catalog in catalog.cart = try r.resolve(Cart.self) }
    }
}

/// The cart feature. Its half of the cycle is a constructor argument: `Cart` needs `Catalog`.
struct CartModule: ContainerModule {
    /// Registers `Cart` in the cart feature's container.
    /// - Parameter container: The container the module is installed into.
    func register(in container: Container) {
        container.autoregister(Cart.self, lifetime: .singleton, initializer: Cart.init)
    }
}

/// The checkout feature. `OrderStore` is opened with `await`: an async factory, run by
/// `bootstrapAsync()` (an `eagerSingleton`), after which the synchronous `Checkout` finds it
/// cached. `Checkout` takes the `checkout` container's own `Session`: a singleton resolves its
/// dependencies from the container that owns it.
struct CheckoutModule: ContainerModule {
    /// The name the order store is opened with.
    var storeName = "orders"

    /// Registers `OrderStore` and `Checkout` in the checkout feature's container.
    /// - Parameter container: The container the module is installed into.
    func register(in container: Container) {
        container.register(OrderStore.self, lifetime: .eagerSingleton) { [storeName] r in
            try await OrderStore.open(storeName, logger: try r.resolve())
        }
        container.autoregister(Checkout.self, lifetime: .singleton, initializer: Checkout.init)
    }
}

/// The shell registers the entry point and the checkout screen's view model. `App` is a `graph`
/// instance: a new one per resolve, holding the features' singletons and the `shell` container's
/// session. `CheckoutViewModel` is `@MainActor`: its factory is a `mainActorFactory`, run inline
/// by a synchronous resolve on the main actor.
struct ShellModule: ContainerModule {
    /// Registers `App` and `CheckoutViewModel` in the shell's container.
    /// - Parameter container: The container the module is installed into.
    func register(in container: Container) {
        container.autoregister(App.self, initializer: App.init)
        container.register(
            CheckoutViewModel.self,
            mainActorFactory: { r in
                CheckoutViewModel(cart: try r.resolve(), store: try r.resolve(), config: try r.resolve())
            })
    }
}
