import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Modules article (Sources/ScopeGraph/ScopeGraph.docc/Modules.md), as the article
// shows it; Scripts/docs/check-articles.py fails when the two differ. The walk-through of
// Examples/ModularShop quotes that package's own sources, which CI builds and tests.

@Suite struct ModulesArticleTests {
    struct Environment: Sendable {
        let apiURL: String
        let flags: [String]
        static let production = Environment(apiURL: "https://api.example.com", flags: [])
    }
    protocol Logger: Sendable {}
    final class ConsoleLogger: Logger {}
    protocol HTTPClient: Sendable {}
    final class URLSessionClient: HTTPClient {
        let environment: Environment
        init(environment: Environment) { self.environment = environment }
    }
    final class Cart: Sendable {}
    protocol PaymentService: Sendable {}
    struct CardPayments: PaymentService {}
    protocol Checkout: Sendable {}
    final class ExpressCheckout: Checkout {
        init(cart: Cart) {}
    }
    final class APIClient: Sendable {
        init(logger: Logger) {}
    }
    protocol SettingsStore: Sendable {}
    final class UserDefaultsStore: SettingsStore {}
    struct AnalyticsModule: ContainerModule {
        func register(in container: Container) {}
    }
    struct CatalogModule: ContainerModule {
        func register(in container: Container) {}
    }
    struct CartModule: ContainerModule {
        func register(in container: Container) {
            container.register(PaymentService.self) { _ in CardPayments() }
        }
    }

    struct CoreModule: ContainerModule {
        let environment: Environment

        func register(in container: Container) {
            container.register(instance: environment)
            container.register(Logger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            container.autoregister(HTTPClient.self, lifetime: .singleton, initializer: URLSessionClient.init)
        }
    }

    struct CheckoutModule: ContainerModule {
        func register(in container: Container) {
            container.register(Cart.self, lifetime: .perContainer) { _ in Cart() }
            container.autoregister(Checkout.self, initializer: CheckoutService.init)
        }
    }

    @Test func installingModules() throws {
        let app = Container(name: "app", modules: CoreModule(environment: .production), AnalyticsModule())
        let catalog = app.makeChild(name: "catalog", modules: CatalogModule())
        let checkout = app.makeChild(name: "checkout", modules: CartModule(), CheckoutModule())
        checkout.collaborate(with: catalog)
        #expect(try checkout.resolve(Checkout.self) is CheckoutService)
        #expect(try app.resolve(HTTPClient.self) is URLSessionClient)
    }

    @Test func configurationBlocks() throws {
        let app = Container(name: "app") { c in
            c.register(Logger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            c.register(APIClient.self) { r in APIClient(logger: try r.resolve()) }
        }

        let settings = app.makeChild(name: "settings") { c in
            c.register(SettingsStore.self, lifetime: .singleton) { _ in UserDefaultsStore() }
        }
        _ = try app.resolve(APIClient.self)
        #expect(try settings.resolve(SettingsStore.self) is UserDefaultsStore)
    }

    @Test func registeringAnExistingInstance() throws {
        let container = Container(name: "app")
        let (url, flags) = ("https://staging.example.com", ["beta"])
        let logger = ConsoleLogger()
        let environment = Environment(apiURL: url, flags: flags)
        container.register(instance: environment)
        container.register(ConsoleLogger.self, instance: logger).implements(Logger.self)
        #expect(try container.resolve(Environment.self).flags == ["beta"])
        #expect(try container.resolve(Logger.self) as? ConsoleLogger === logger)
    }

    final class CheckoutService: Checkout {
        init(cart: Cart, payments: PaymentService, logger: Logger) {}
    }

    @Test func autoWiring() throws {  // hidden in the docs
        let container = Container(  // hidden in the docs
            name: "app", modules: CoreModule(environment: .production), CartModule())  // hidden in the docs
        container.register(Cart.self) { _ in Cart() }  // hidden in the docs

        container.autoregister(Checkout.self, initializer: CheckoutService.init)
        container.autoregister(Checkout.self, tag: "express", lifetime: .singleton, initializer: ExpressCheckout.init)
        #expect(try container.resolve(Checkout.self) is CheckoutService)
        #expect(try container.resolve(Checkout.self, tag: "express") is ExpressCheckout)
    }
}
