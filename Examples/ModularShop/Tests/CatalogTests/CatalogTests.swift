import Catalog
import ScopeGraphTesting
import ShopInterfaces
import Testing

/// The Catalog feature on its own. The test's core container provides what the composition root
/// and the other features would: a logger, the settings, and a `FakeCart` registered for
/// `any ShoppingCart`. The catalog's `onResolved` finds the fake by the ordinary lookup walk
/// (its container, then the parent), as it finds the real cart through a collaboration link in
/// the app. Each test gets fresh containers: Swift Testing creates the suite once per test.
@Suite struct CatalogTests {
    let products = [Product(name: "Kettle", price: 3_500), Product(name: "Teapot", price: 1_999)]
    let logger = RecordingLogger()
    let cart = FakeCart()
    let core = Container(name: "test-core")
    let catalog: Container

    init() {
        core.register((any ShopLogger).self, instance: logger)
        core.register(instance: ShopConfig(currency: "GBP", taxPercent: 20))
        core.register((any ShoppingCart).self, instance: cart)
        catalog = core.makeChild(name: "catalog", modules: CatalogModule(products: products))
    }

    @Test func theListingShowsEveryProductWithItsPriceInTheConfiguredCurrency() throws {
        let listing = try catalog.resolve((any ProductCatalog).self).listing()
        #expect(
            listing == [
                "          Kettle  GBP 35.00",
                "          Teapot  GBP 19.99",
            ])
    }

    @Test func theListingMarksTheProductsTheCartHolds() throws {
        let catalog = try catalog.resolve((any ProductCatalog).self)
        cart.put(products[1])
        #expect(
            catalog.listing() == [
                "          Kettle  GBP 35.00",
                "[in cart] Teapot  GBP 19.99",
            ])
    }

    @Test func aProductIsFoundByNameAndAnUnknownNameFindsNothing() throws {
        let catalog = try catalog.resolve((any ProductCatalog).self)
        #expect(catalog.product(named: "Kettle") == Product(name: "Kettle", price: 3_500))
        #expect(catalog.product(named: "Toaster") == nil)
    }

    @Test func theCatalogIsOneSingletonBuiltOnce() throws {
        let first = try catalog.resolve((any ProductCatalog).self)
        let second = try catalog.resolve((any ProductCatalog).self)
        #expect(first === second)
        #expect(logger.lines == ["catalog: created with 2 products"])
    }

    @Test func theCatalogValidatesWhenTheCartIsProvided() {
        let report = core.validate()
        #expect(report.isValid, "\(report)")
    }

    @Test func theCatalogDoesNotValidateWithoutACart() {
        let bare = Container(name: "bare")
        bare.register((any ShopLogger).self, instance: logger)
        bare.register(instance: ShopConfig(currency: "GBP", taxPercent: 20))
        let catalog = bare.makeChild(name: "catalog", modules: CatalogModule(products: products))
        let report = bare.validate()
        #expect(!report.isValid)
        #expect(report.issues.contains { $0.severity == .error && "\($0)".contains("ShoppingCart") }, "\(report)")
        withExtendedLifetime(catalog) {}
    }
}
