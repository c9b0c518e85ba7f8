import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Getting Started article (Sources/ScopeGraph/ScopeGraph.docc/GettingStarted.md),
// as the article shows it, so that the build compiles it and the tests check what the article
// says. Scripts/docs/check-articles.py fails when the two differ; a line that ends in
// `// hidden in the docs` is left out of the comparison.

@Suite struct GettingStartedArticleTests {
    protocol Greeter: Sendable { func greet(_ name: String) -> String }
    struct EnglishGreeter: Greeter { func greet(_ name: String) -> String { "Hello, \(name)!" } }
    struct Welcome { let greeter: any Greeter }

    @Test func registerAndResolve() throws {  // hidden in the docs
        let app = Container(name: "app")
        app.register(Greeter.self, lifetime: .singleton) { _ in EnglishGreeter() }
        app.register(Welcome.self) { r in Welcome(greeter: try r.resolve()) }

        let welcome = try app.resolve(Welcome.self)
        #expect(welcome.greeter.greet("Ada") == "Hello, Ada!")
    }

    protocol Logger: AnyObject, Sendable {}
    final class ConsoleLogger: Logger {}
    final class Telemetry: Sendable {}
    final class Database: Sendable {
        let url: String
        init(url: String) { self.url = url }
    }
    protocol Storage: Sendable {}
    struct MemoryStorage: Storage {}
    protocol API: Sendable {}
    struct LiveAPI: API {}
    final class Session: Sendable {
        let userID: Int
        let token: String
        init(userID: Int = 0, token: String = "", api: any API) { (self.userID, self.token) = (userID, token) }
        convenience init(api: any API) { self.init(userID: 0, token: "", api: api) }
    }
    final class Catalog: @unchecked Sendable {
        // @unchecked: `cart` is set once, by onResolved, before the container publishes the instance.
        let logger: any Logger
        weak var cart: Cart?
        init(logger: any Logger) { self.logger = logger }
    }
    final class Cart: Sendable {
        let catalog: Catalog
        init(catalog: Catalog) { self.catalog = catalog }
    }
    struct Checkout { let cart: Cart }
    struct App { let checkout: Checkout }
    protocol Analytics: Sendable {}
    protocol Plugin: Sendable {}
    struct SearchPlugin: Plugin {}
    struct LoginFlow { let makeSession: Provider<Session> }
    struct Report {}
    final class PDFExporter: Sendable {
        func export(_ report: Report) throws {}
    }
    struct ReportScreen { let exporter: Lazy<PDFExporter> }

    @Test func lifetimesInOneParagraph() throws {
        let app = Container(name: "app")
        app.register(Telemetry.self, lifetime: .eagerSingleton) { _ in Telemetry() }
        try app.bootstrap()  // builds Telemetry now, and the eager singletons of every descendant
        #expect(try app.resolve(Telemetry.self) === app.resolve(Telemetry.self))
    }

    @Test func tags() throws {
        let app = Container(name: "app")
        let primaryURL = "db://primary"
        let replicaURL = "db://replica"
        app.register(Database.self, tag: "primary", lifetime: .singleton) { _ in Database(url: primaryURL) }
        app.register(Database.self, tag: "replica", lifetime: .singleton) { _ in Database(url: replicaURL) }

        enum Store: String { case cache, archive }
        app.register(Storage.self, tag: ServiceTag(Store.cache)) { _ in MemoryStorage() }

        let primary = try app.resolve(Database.self, tag: "primary")
        #expect(primary.url == primaryURL)
        #expect(try app.resolve(Storage.self, tag: ServiceTag(Store.cache)) is MemoryStorage)
        #expect(throws: ResolutionError.self) { try app.resolve(Database.self) }
    }

    @Test func runtimeArguments() throws {
        let app = Container(name: "app")
        app.register(API.self) { _ in LiveAPI() }
        app.register(Session.self) { (r, userID: Int, token: String) in
            Session(userID: userID, token: token, api: try r.resolve())
        }
        let session = try app.resolve(Session.self, arguments: 42, "secret")
        #expect([session.userID] == [42] && session.token == "secret")
        let error = try #require(throws: ResolutionError.self) { try app.resolve(Session.self, arguments: "42") }
        #expect(error.kind == .argumentMismatch)
    }

    @Test func forwardingATypeWithImplements() throws {
        let app = Container(name: "app")
        app.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            .implements(Logger.self)

        let logger = try app.resolve(Logger.self)  // the ConsoleLogger singleton
        let console = try app.resolve(ConsoleLogger.self)  // the same object
        #expect(logger === console)
    }

    /// "Feature containers", then "Property injection and cycles": `Cart` takes `Catalog` in its
    /// initializer, `Catalog` gets `Cart` by property; each is built once.
    @Test func featureContainersAndTheirCycle() throws {
        let app = Container(name: "app")
        app.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            .implements(Logger.self)
        do {  // hidden in the docs
            let catalog = app.makeChild(name: "catalog")
            let cart = app.makeChild(name: "cart")
            cart.collaborate(with: catalog)  // lookups from cart visit catalog; not the other way round

            catalog.register(Catalog.self, lifetime: .singleton) { r in Catalog(logger: try r.resolve()) }
            cart.register(Cart.self, lifetime: .singleton) { r in Cart(catalog: try r.resolve()) }
            let shoppingCart = try cart.resolve(Cart.self)
            #expect(shoppingCart.catalog.cart == nil)
        }

        let catalog = app.makeChild(name: "catalog")
        let cart = app.makeChild(name: "cart")
        cart.collaborate(with: catalog)
        cart.register(Cart.self, lifetime: .singleton) { r in Cart(catalog: try r.resolve()) }
        catalog.register(Catalog.self, lifetime: .singleton) { r in Catalog(logger: try r.resolve()) }
            .onResolved { r, catalog in catalog.cart = try r.resolve(Cart.self) }
        catalog.collaborate(with: cart)

        let shoppingCart = try cart.resolve(Cart.self)
        #expect(shoppingCart.catalog.cart === shoppingCart)
    }

    @Test func whenSomethingIsMissing() throws {
        let app = Container(name: "app")
        app.register(App.self) { r in App(checkout: try r.resolve()) }
        app.register(Checkout.self) { r in Checkout(cart: try r.resolve()) }
        do {
            _ = try app.resolve(App.self)
        } catch let error as ResolutionError {
            print(error)
        }
        let error = try #require(throws: ResolutionError.self) { try app.resolve(App.self) }
        #expect(error.path.map(\.typeName) == ["App", "Checkout", "Cart"])
    }

    @Test func twoMoreWaysToAsk() throws {
        let app = Container(name: "app")
        app.register(Plugin.self, tag: "search") { _ in SearchPlugin() }
        let analytics = try app.resolveIfRegistered(Analytics.self)  // nil only when nothing is registered
        let plugins = try app.resolveAll(Plugin.self)  // every tag, nearest container first
        #expect(analytics == nil)
        #expect(plugins.count == 1)
    }

    @Test func resolvingLaterWithProviderAndLazy() throws {
        let app = Container(name: "app")
        let report = Report()
        app.register(API.self) { _ in LiveAPI() }
        app.register(PDFExporter.self) { _ in PDFExporter() }
        app.register(Session.self) { r in Session(api: try r.resolve()) }
        app.register(LoginFlow.self) { r in LoginFlow(makeSession: try r.resolve(Provider<Session>.self)) }
        app.register(ReportScreen.self) { r in ReportScreen(exporter: try r.resolve(Lazy<PDFExporter>.self)) }
        let makeSession = try app.resolve(LoginFlow.self).makeSession  // hidden in the docs
        let exporter = try app.resolve(ReportScreen.self).exporter  // hidden in the docs

        // in LoginFlow, at each login:
        let session = try makeSession()  // resolves Session now
        // in ReportScreen, only when the user exports:
        try exporter.value.export(report)  // the first read resolves PDFExporter; later reads reuse it
        #expect(try makeSession() !== session)
        #expect(exporter.isResolved)
    }
}
