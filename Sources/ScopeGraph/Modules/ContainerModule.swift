/// A unit of registrations: what one feature or layer contributes to a container.
///
/// A composition root then reads as a list of modules, one container per feature:
///
/// ```swift
/// struct NetworkModule: ContainerModule {
///     let baseURL: String
///     func register(in container: Container) {
///         container.register(HTTPClient.self, lifetime: .singleton) { _ in URLSessionClient(baseURL: baseURL) }
///     }
/// }
///
/// let app = Container(name: "app", modules: CoreModule(), NetworkModule(baseURL: "https://api"))
/// let checkout = app.makeChild(name: "checkout", modules: CartModule(), PaymentsModule())
/// ```
///
/// Swinject users: a module is an `Assembly`; `Container(name:modules:)`, `install(_:)` and
/// `makeChild(name:modules:)` do what an `Assembler` does.
public protocol ContainerModule {
    /// Registers this module's services in `container`.
    /// - Parameter container: The container the module is installed into.
    func register(in container: Container)
}

extension Container {
    /// Creates a root container and installs `modules` into it, in order.
    ///
    /// ```swift
    /// let app = Container(name: "app", modules: CoreModule(), NetworkModule())
    /// ```
    /// - Parameters:
    ///   - name: The container's name.
    ///   - modules: The modules to install; a later module's registration of a key replaces an
    ///     earlier one's.
    public convenience init(name: String = "root", modules: any ContainerModule...) {
        self.init(name: name)
        install(modules)
    }

    /// Creates a root container and installs `modules` into it, in order; the form for a list
    /// built at run time.
    ///
    /// ```swift
    /// var modules: [any ContainerModule] = [CoreModule(), NetworkModule()]
    /// if isDebug { modules.append(DebugMenuModule()) }
    /// let app = Container(name: "app", modules: modules)
    /// ```
    /// - Parameters:
    ///   - name: The container's name.
    ///   - modules: The modules to install; a later module's registration of a key replaces an
    ///     earlier one's.
    public convenience init(name: String = "root", modules: [any ContainerModule]) {
        self.init(name: name)
        install(modules)
    }

    /// Installs modules into this container, in the order given: a later module's registration
    /// of a key replaces an earlier one's (last wins).
    ///
    /// ```swift
    /// app.install(CoreModule(), NetworkModule(), AnalyticsModule())
    /// ```
    /// - Parameter modules: The modules to install.
    public func install(_ modules: any ContainerModule...) { install(modules) }

    /// Installs modules into this container, in order; see `install(_:)`.
    /// - Parameter modules: The modules to install.
    public func install(_ modules: [any ContainerModule]) {
        for module in modules { module.register(in: self) }
    }

    /// Creates a child container for one feature and installs `modules` into it, in order.
    ///
    /// ```swift
    /// let checkout = app.makeChild(name: "checkout", modules: CartModule(), PaymentsModule())
    /// ```
    /// - Parameters:
    ///   - name: The child's name.
    ///   - modules: The modules to install into the child.
    /// - Returns: The new child; the caller owns it (a parent tracks its children weakly).
    public func makeChild(name: String, modules: any ContainerModule...) -> Container {
        makeChild(name: name, modules: modules)
    }

    /// Creates a child container and installs `modules` into it; see `makeChild(name:modules:)`.
    /// - Parameters:
    ///   - name: The child's name.
    ///   - modules: The modules to install into the child.
    /// - Returns: The new child.
    public func makeChild(name: String, modules: [any ContainerModule]) -> Container {
        let child = makeChild(name: name)
        child.install(modules)
        return child
    }
}
