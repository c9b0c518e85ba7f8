import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Diagnostics article (Sources/ScopeGraph/ScopeGraph.docc/Diagnostics.md), as the
// article shows it; Scripts/docs/check-articles.py fails when the two differ. The messages it
// quotes are pinned by ErrorMessageTests, ValidationTests, DependencyGraphTests and TraceTests.

@Suite struct DiagnosticsArticleTests {
    final class Catalog: Sendable {}
    final class Cart: @unchecked Sendable {
        // @unchecked: `checkout` is set once, by onResolved, before the container publishes the instance.
        let catalog: Catalog
        weak var checkout: Checkout?
        init(catalog: Catalog) { self.catalog = catalog }
    }
    final class Checkout: Sendable {
        let cart: Cart
        init(cart: Cart) { self.cart = cart }
    }
    struct Receipt { let number: Int }
    struct Session {
        let userID: Int
        let token: String
    }
    final class Logger: Sendable {}
    struct Screen { let logger: Logger }

    @Test func validatingATreeThatHasAProblem() throws {
        let app = Container(name: "app")
        app.register(Checkout.self) { r in Checkout(cart: try r.resolve()) }
        let report = app.validate()
        if !report.isValid {
            print(report)
        }
        #expect(report.errors.count == 1)
    }

    /// "Circular dependency": the fix, with `Cart` taking `Checkout` in `onResolved`, validates
    /// clean and resolves one pair.
    @Test func theCartCheckoutCycleBrokenWithOnResolvedValidatesClean() throws {
        let app = Container(name: "app")
        app.register(Catalog.self, lifetime: .singleton) { _ in Catalog() }
        let cart = app.makeChild(name: "cart")
        let checkout = app.makeChild(name: "checkout")
        cart.collaborate(with: checkout)
        checkout.collaborate(with: cart)

        cart.register(Cart.self, lifetime: .singleton) { r in Cart(catalog: try r.resolve()) }
            .onResolved { r, cart in cart.checkout = try r.resolve() }
        checkout.register(Checkout.self, lifetime: .singleton) { r in Checkout(cart: try r.resolve()) }

        let report = app.validate()
        #expect(report.isValid)
        #expect(report.issues.isEmpty)
        let resolved = try checkout.resolve(Checkout.self)
        #expect(resolved.cart.checkout === resolved)
    }

    @Test func sampleArgumentsLetValidationRunRegistrationsThatTakeArguments() throws {
        let app = Container(name: "app")
        app.register(Receipt.self) { (_, number: Int) in Receipt(number: number) }
        app.register(Session.self, tag: "guest") { (_, id: Int, token: String) in Session(userID: id, token: token) }
        var options = ValidationOptions()
        options.provideArguments(for: Receipt.self, 42)  // Receipt(Int)
        options.provideArguments(for: Session.self, tag: "guest", 0, "")  // Session[tag: "guest"](Int, String)
        let report = app.validate(with: options)
        #expect(report.isValid)
        #expect(report.warnings.isEmpty)
    }

    @Test func theDependencyGraph() throws {
        let app = Container(name: "app")
        app.register(Logger.self, lifetime: .singleton) { _ in Logger() }
        app.register(Screen.self) { r in Screen(logger: try r.resolve()) }
        let graph = app.dependencyGraph()  // or dependencyGraph(with: options)
        let nodes = graph.nodes  // [DependencyGraph.Node]: key, container, lifetime of every registration
        let edges = graph.edges  // [DependencyGraph.Edge]: from the dependent to what it resolved
        let cycleEdges = graph.cycleEdges  // the edges of constructor cycles
        let issues = graph.issues  // what validate() would report
        print(graph.dot())  // Graphviz
        print(graph.mermaid())  // Mermaid
        #expect(nodes.map(\.key.typeName) == ["Logger", "Screen"])
        #expect(edges.map { [$0.from.key.typeName, $0.to.key.typeName] } == [["Screen", "Logger"]])
        #expect(cycleEdges.isEmpty && issues.isEmpty)
    }

    @Test func theResolutionTrace() throws {
        let app = Container(name: "app")
        let feature = app.makeChild(name: "feature")
        app.register(Logger.self, lifetime: .eagerSingleton) { _ in Logger() }
        feature.register(Screen.self) { r in Screen(logger: try r.resolve()) }
        let (screen, trace) = try Container.trace { try feature.resolve(Screen.self) }
        print(trace)
        #expect(trace.events.map(\.key.typeName) == ["Logger", "Screen"])
        #expect(try screen.logger === app.resolve(Logger.self))

        try Container.withTrace { event in
            if event.isNew, event.duration > .milliseconds(50) { print("slow:", event) }
        } operation: {
            try app.bootstrap()
        }
        #expect(try app.resolve(Logger.self) === screen.logger)
    }
}
