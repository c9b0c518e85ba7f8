import Cart
import ScopeGraphTesting
import ShopInterfaces
import Testing

/// The container the cart tests resolve from: the Cart feature's module alone, with no catalog
/// and no logger. The suite's `.overrides` trait supplies both, for each test separately.
enum CartHarness {
    /// The cart feature's container.
    static let cart = Container(name: "cart", modules: CartModule())

    /// What the fake catalog sells.
    static let products = [Product(name: "Notebook", price: 450), Product(name: "Pencil", price: 120)]
}

/// The Cart feature on its own, through ScopeGraphTesting's `.overrides` trait: every test runs
/// in its own override scope on `CartHarness.cart`, where `any ProductCatalog` is a
/// `FakeCatalog` and the logger a `RecordingLogger`. The cart is a singleton, and singletons
/// resolved in a scope are cached in that scope, so each test (even when the tests run in
/// parallel) gets a fresh, empty cart, and the shared container's cache is never written.
@Suite(
    .overrides(CartHarness.cart) { overrides in
        overrides.register((any ProductCatalog).self, lifetime: .singleton) { _ in
            FakeCatalog(products: CartHarness.products)
        }
        overrides.register((any ShopLogger).self, lifetime: .singleton) { _ in RecordingLogger() }
    }
)
struct CartTests {
    @Test func aNewCartIsEmpty() throws {
        let cart = try CartHarness.cart.resolve((any ShoppingCart).self)
        #expect(cart.items.isEmpty)
        #expect(cart.subtotal == 0)
    }

    @Test func addingAProductTheCatalogSellsPutsTheCatalogsProductInTheCart() throws {
        let cart = try CartHarness.cart.resolve((any ShoppingCart).self)
        try cart.add("Pencil")
        #expect(cart.items == [Product(name: "Pencil", price: 120)])
        #expect(cart.contains(Product(name: "Pencil", price: 120)))
    }

    @Test func addingAProductTheCatalogDoesNotSellThrowsAndLeavesTheCartAsItWas() throws {
        let cart = try CartHarness.cart.resolve((any ShoppingCart).self)
        try cart.add("Notebook")
        #expect(throws: ShopError.unknownProduct("Eraser")) { try cart.add("Eraser") }
        #expect(cart.items.map(\.name) == ["Notebook"])
    }

    @Test func theSubtotalIsTheSumOfThePricesAndRemoveAllEmptiesTheCart() throws {
        let cart = try CartHarness.cart.resolve((any ShoppingCart).self)
        try cart.add("Notebook")
        try cart.add("Pencil")
        try cart.add("Pencil")
        #expect(cart.subtotal == 690)
        cart.removeAll()
        #expect(cart.items.isEmpty)
    }

    @Test func theCartIsOneSingletonWithinATestAndLogsItsWork() throws {
        let cart = try CartHarness.cart.resolve((any ShoppingCart).self)
        #expect(try CartHarness.cart.resolve((any ShoppingCart).self) === cart)
        try cart.add("Notebook")
        let logger = try #require(try CartHarness.cart.resolve((any ShopLogger).self) as? RecordingLogger)
        #expect(logger.lines == ["cart: created", "cart: added Notebook"])
    }

    @Test func aNestedOverrideScopeBuildsItsOwnCartWithTheInnermostCatalog() throws {
        let outer = try CartHarness.cart.resolve((any ShoppingCart).self)
        let emptyCatalog = FakeCatalog(products: [])
        try CartHarness.cart.withOverrides {
            $0.register((any ProductCatalog).self, instance: emptyCatalog)
        } operation: {
            let inner = try CartHarness.cart.resolve((any ShoppingCart).self)
            #expect(inner !== outer)
            #expect(throws: ShopError.unknownProduct("Pencil")) { try inner.add("Pencil") }
        }
        try outer.add("Pencil")
        #expect(outer.items.count == 1)
    }
}
