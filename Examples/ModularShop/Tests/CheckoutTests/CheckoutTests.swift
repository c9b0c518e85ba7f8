import Checkout
import ScopeGraphTesting
import ShopInterfaces
import Testing

/// The Checkout feature on its own. The test's core container registers what the composition
/// root and the Cart feature would provide: a logger, the settings (10 % tax) and a `FakeCart`
/// holding two products; one test swaps the cart for an empty one with `withOverrides`. Sessions
/// are children of the checkout container, as in the app. Each test gets fresh containers.
@Suite struct CheckoutTests {
    let logger = RecordingLogger()
    let cart = FakeCart(items: [Product(name: "Lamp", price: 2_000), Product(name: "Bulb", price: 500)])
    let core = Container(name: "test-core")
    let checkout: Container

    init() {
        core.register((any ShopLogger).self, instance: logger)
        core.register(instance: ShopConfig(currency: "USD", taxPercent: 10))
        core.register((any ShoppingCart).self, instance: cart)
        checkout = core.makeChild(name: "checkout", modules: CheckoutModule())
    }

    @Test func placingAnOrderChargesTheCartPlusTaxAndEmptiesTheCart() throws {
        let session = checkout.makeChild(name: "session-a")
        let order = try session.resolve((any CheckoutService).self).placeOrder()
        #expect(order.items.map(\.name) == ["Lamp", "Bulb"])
        #expect(order.subtotal == 2_500)
        #expect(order.tax == 250)
        #expect(order.total == 2_750)
        #expect(cart.items.isEmpty)
        #expect(logger.lines == ["checkout: session-a placed order #1, USD 27.50"])
    }

    @Test func anEmptyCartCannotBeCheckedOut() throws {
        let session = checkout.makeChild(name: "session-a")
        try checkout.withOverrides {
            $0.register((any ShoppingCart).self, instance: FakeCart())
        } operation: {
            let service = try session.resolve((any CheckoutService).self)
            #expect(throws: ShopError.emptyCart) { try service.placeOrder() }
        }
        #expect(try session.resolve((any CheckoutSession).self).orders.isEmpty)
        #expect(cart.items.count == 2)
    }

    @Test func ordersAreNumberedWithinTheSessionThatPlacedThem() throws {
        let session = checkout.makeChild(name: "session-a")
        _ = try session.resolve((any CheckoutService).self).placeOrder()
        cart.put(Product(name: "Shade", price: 1_000))
        let second = try session.resolve((any CheckoutService).self).placeOrder()
        #expect(second.number == 2)
        #expect(second.session == "session-a")
        #expect(try session.resolve((any CheckoutSession).self).orders.map(\.number) == [1, 2])
    }

    @Test func eachSessionContainerHasItsOwnCheckoutSession() throws {
        let first = checkout.makeChild(name: "session-a")
        let second = checkout.makeChild(name: "session-b")
        let a = try first.resolve((any CheckoutSession).self)
        let b = try second.resolve((any CheckoutSession).self)
        #expect(a !== b)
        #expect(try first.resolve((any CheckoutSession).self) === a)
        #expect([a.name, b.name] == ["session-a", "session-b"])

        _ = try first.resolve((any CheckoutService).self).placeOrder()
        #expect(a.orders.count == 1)
        #expect(b.orders.isEmpty)
    }

    @Test func theCheckoutFeatureValidatesWithTheFakes() {
        let report = core.validate()
        #expect(report.isValid, "\(report)")
    }
}
