import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Lifetimes article (Sources/ScopeGraph/ScopeGraph.docc/Lifetimes.md), as the
// article shows it; Scripts/docs/check-articles.py fails when the two differ. A line that ends
// in `// hidden in the docs` is left out of the comparison.

@Suite struct LifetimesArticleTests {
    final class Database: Sendable {}
    enum Theme { case light, dark }
    final class Renderer: Sendable {
        let theme: Theme
        init(theme: Theme) { self.theme = theme }
    }
    struct Screen { let theme: Theme }
    final class Session: Sendable {
        let owner: String
        init(owner: String) { self.owner = owner }
    }
    final class Logger: Sendable {}
    final class Telemetry: Sendable {
        let logger: Logger
        private init(logger: Logger) { self.logger = logger }
        static func start(logger: Logger) -> Telemetry { Telemetry(logger: logger) }
    }
    final class AuthToken: Sendable {
        static func load() -> AuthToken { AuthToken() }
    }

    @Test func aSingletonRegistration() throws {
        let container = Container()
        container.register(Database.self, lifetime: .singleton) { _ in Database() }
        #expect(try container.resolve(Database.self) === container.resolve(Database.self))
    }

    /// "Owner-rooted resolution".
    @Test func aSingletonResolvesFromItsOwnerAndAGraphFromTheChild() throws {
        let app = Container(name: "app")
        let feature = app.makeChild(name: "feature")

        app.register(Theme.self) { _ in Theme.light }
        feature.register(Theme.self) { _ in Theme.dark }

        app.register(Renderer.self, lifetime: .singleton) { r in Renderer(theme: try r.resolve()) }
        app.register(Screen.self) { r in Screen(theme: try r.resolve()) }  // graph

        let renderer = try feature.resolve(Renderer.self)  // renderer.theme == .light: resolved from 'app', its owner
        let screen = try feature.resolve(Screen.self)  // screen.theme == .dark: resolved from 'feature'
        #expect(renderer.theme == .light)
        #expect(screen.theme == .dark)
    }

    @Test func perContainerGivesOneInstancePerStartingContainer() throws {
        let app = Container(name: "app")
        let catalog = app.makeChild(name: "catalog")
        let cart = app.makeChild(name: "cart")
        app.register(Session.self, lifetime: .perContainer) { r in Session(owner: r.container.name) }

        let a = try catalog.resolve(Session.self)
        let b = try catalog.resolve(Session.self)  // a === b: one per container
        let c = try cart.resolve(Session.self)  // c !== a: siblings get one each
        #expect(a === b)
        #expect(c !== a)
        #expect([a.owner, c.owner] == ["catalog", "cart"])
    }

    @Test func bootstrapBuildsTheEagerSingletons() throws {
        let app = Container(name: "app")
        app.register(Logger.self, lifetime: .singleton) { _ in Logger() }
        app.register(Telemetry.self, lifetime: .eagerSingleton) { r in Telemetry.start(logger: try r.resolve()) }
        try app.bootstrap()
        #expect(try app.resolve(Telemetry.self).logger === app.resolve(Logger.self))
    }

    /// "Dropping cached instances".
    @Test func resettingCachedInstancesKeepsTheRegistrations() throws {
        let app = Container(name: "app")
        let session = app.makeChild(name: "session")
        session.register(Logger.self, lifetime: .singleton) { _ in Logger() }
        app.register(Session.self, lifetime: .perContainer) { r in Session(owner: r.container.name) }
        let logger = try session.resolve(Logger.self)
        let appSession = try app.resolve(Session.self)

        session.resetCachedInstances()  // everything cached in `session`
        app.resetCachedInstances(lifetime: .perContainer)  // one lifetime's instances in `app`
        let token = app.register(AuthToken.self, lifetime: .singleton) { _ in AuthToken.load() }
        token.resetCachedInstances()  // one registration's, wherever cached
        #expect(try session.resolve(Logger.self) !== logger)
        #expect(try app.resolve(Session.self) !== appSession)
    }
}
