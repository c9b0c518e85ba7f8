import Cart
import Catalog
import Checkout
import ScopeGraphTesting
import ShopComposition
import ShopInterfaces
import Testing

/// The composed app: the real features in the tree `ShopContainers` builds, with no fakes. Each
/// test composes its own tree with its own `ShopLog`, whose lines count the factories that ran.
@Suite struct ShopCompositionTests {
    let log = ShopLog()
    let shop: ShopContainers

    init() {
        shop = ShopContainers(logger: log)
    }

    @Test func theComposedTreeValidatesWithoutAnyIssue() {
        let report = shop.validate()
        #expect(report.isValid, "\(report)")
        #expect(report.issues.isEmpty, "\(report)")
    }

    @Test func theScriptedSessionWritesTheExpectedTranscript() throws {
        var printed: [String] = []
        let transcript = try shop.runScriptedSession { printed.append($0) }
        #expect(printed == transcript)
        #expect(
            transcript == [
                "catalog:",
                "            Espresso beans  EUR 14.50",
                "            Milk frother    EUR 29.90",
                "            Ceramic cup     EUR 8.00",
                "add Espresso beans: ok",
                "add Ceramic cup: ok",
                "add Unicorn: the catalog has no product named 'Unicorn'",
                "catalog, after adding:",
                "  [in cart] Espresso beans  EUR 14.50",
                "            Milk frother    EUR 29.90",
                "  [in cart] Ceramic cup     EUR 8.00",
                "session-1: order #1, 2 items, subtotal EUR 22.50 + tax EUR 4.50 = EUR 27.00",
                "session-2: checkout refused, the cart is empty",
                "session-1 placed 1 order(s)",
                "session-2 placed 0 order(s)",
            ])
    }

    @Test(arguments: ["catalog", "cart"])
    func theCatalogCartCycleResolvesFromEitherEndWithEachFactoryOnce(startingFrom feature: String) throws {
        let (catalog, cart): (any ProductCatalog, any ShoppingCart)
        if feature == "catalog" {
            catalog = try shop.catalog.resolve((any ProductCatalog).self)
            cart = try shop.cart.resolve((any ShoppingCart).self)
        } else {
            cart = try shop.cart.resolve((any ShoppingCart).self)
            catalog = try shop.catalog.resolve((any ProductCatalog).self)
        }
        // Resolved again, from the other side of each link and from a session: nothing new.
        #expect(try shop.cart.resolve((any ProductCatalog).self) === catalog)
        #expect(try shop.makeSession(name: "session").resolve((any ShoppingCart).self) === cart)
        #expect(log.lines.filter { $0.hasPrefix("catalog: created") }.count == 1)
        #expect(log.lines.filter { $0 == "cart: created" }.count == 1)

        // Each end holds the other: the cart finds the catalog's products, the catalog marks them.
        try cart.add("Milk frother")
        #expect(catalog.listing().filter { $0.hasPrefix("[in cart] Milk frother") }.count == 1)
    }

    @Test func eachSessionChildGetsItsOwnCheckoutSession() throws {
        let first = shop.makeSession(name: "session-a")
        let second = shop.makeSession(name: "session-b")
        let a = try first.resolve((any CheckoutSession).self)
        let b = try second.resolve((any CheckoutSession).self)
        #expect(a !== b)
        #expect(try first.resolve((any CheckoutSession).self) === a)
        #expect([a.name, b.name] == ["session-a", "session-b"])

        try shop.cart.resolve((any ShoppingCart).self).add("Ceramic cup")
        let order = try first.resolve((any CheckoutService).self).placeOrder()
        #expect(a.orders == [order])
        #expect(b.orders.isEmpty)
    }

    @Test func aCheckoutNotLinkedToTheCartDoesNotValidateAndTheReportSaysWhy() {
        let core = Container(name: "app", modules: CoreModule(logger: log, config: ShopContainers.sampleConfig))
        let catalog = core.makeChild(name: "catalog", modules: CatalogModule(products: ShopContainers.sampleProducts))
        let cart = core.makeChild(name: "cart", modules: CartModule())
        let checkout = core.makeChild(name: "checkout", modules: CheckoutModule())
        catalog.collaborate(with: cart)
        cart.collaborate(with: catalog)
        // Missing: checkout.collaborate(with: cart).

        let report = core.validate()
        #expect(!report.isValid)
        let errors = report.issues.filter { $0.severity == .error }
        #expect(!errors.isEmpty)
        #expect(errors.allSatisfy { $0.container == "checkout" && "\($0)".contains("ShoppingCart") }, "\(report)")
        withExtendedLifetime(checkout) {}
    }
}
