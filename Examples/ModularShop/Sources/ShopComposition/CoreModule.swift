import ScopeGraph
import ShopInterfaces

/// The services every feature shares, installed into the core container: the logger and the
/// settings, both values the composition root already has.
public struct CoreModule: ContainerModule {
    /// Where every service logs.
    public let logger: any ShopLogger
    /// Currency and tax rate.
    public let config: ShopConfig

    /// Creates the module.
    /// - Parameters:
    ///   - logger: Where every service logs.
    ///   - config: Currency and tax rate.
    public init(logger: any ShopLogger, config: ShopConfig) {
        self.logger = logger
        self.config = config
    }

    /// Registers the logger (as `any ShopLogger`) and the settings.
    /// - Parameter container: The core container.
    public func register(in container: Container) {
        container.register((any ShopLogger).self, instance: logger)
        container.register(instance: config)
    }
}
