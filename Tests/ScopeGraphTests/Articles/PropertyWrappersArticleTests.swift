import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Property Wrappers article
// (Sources/ScopeGraph/ScopeGraph.docc/PropertyWrappers.md), as the article shows it;
// Scripts/docs/check-articles.py fails when the two differ. A line that ends in
// `// hidden in the docs` is left out of the comparison. Sections that declare a type of the
// same name have a suite each.

@Suite struct PropertyWrappersArticleTests {
    /// UIKit's, for the article's first example (Linux has no UIKit).
    class UIViewController {}
    protocol Analytics: Sendable {}
    struct LiveAnalytics: Analytics {}
    protocol PaymentService: Sendable {}
    struct LivePaymentService: PaymentService {}
    struct FakePaymentService: PaymentService {}
    protocol Logger: Sendable {}
    struct AuditLog: Logger {}
    final class CheckoutCoordinator: Sendable {
        func start() {}
    }
    final class Cart: Sendable {}
    protocol DebugMenu: Sendable {}

    struct CoreModule: ContainerModule {
        func register(in container: Container) {
            container.register(Analytics.self) { _ in LiveAnalytics() }
            container.register(Logger.self, tag: "audit") { _ in AuditLog() }
        }
    }
    struct CheckoutModule: ContainerModule {
        func register(in container: Container) {
            container.register(PaymentService.self) { _ in LivePaymentService() }
            container.register(CheckoutCoordinator.self, lifetime: .singleton) { _ in CheckoutCoordinator() }
            container.register(Cart.self, lifetime: .singleton) { _ in Cart() }
        }
    }

    final class CheckoutViewController: UIViewController {
        @Injected var analytics: Analytics  // resolved when the controller is created
        @LazyInjected var payments: PaymentService  // resolved the first time it is read
        @LazyInjected(tag: "audit") var auditLog: Logger  // a tagged registration
        @WeakInjected var coordinator: CheckoutCoordinator?  // someone else owns it
    }

    /// "Which container: Container.current".
    @Test func theWrappersResolveFromTheCurrentContainer() throws {
        let app = Container(name: "app", modules: CoreModule(), CheckoutModule())

        let controller = Container.$current.withValue(app) {
            CheckoutViewController()  // @Injected properties resolve from `app`
        }
        #expect(controller.analytics is LiveAnalytics)
        Container.$current.withValue(app) {
            #expect(controller.payments is LivePaymentService)
            #expect(controller.auditLog is AuditLog)
            #expect(controller.coordinator != nil)  // the container holds its singleton
        }
    }

    @Suite struct ContainersPerProperty {
        enum Containers {
            static let checkout = Container(name: "checkout", modules: CheckoutModule())
        }

        final class CheckoutViewModel {
            @LazyInjected(from: Containers.checkout) var cart: Cart
        }

        @Test func aPropertyResolvesFromTheContainerItNames() throws {
            #expect(try CheckoutViewModel().cart === Containers.checkout.resolve(Cart.self))
        }
    }

    @Suite struct ContainersPerInstance {
        final class CheckoutViewModel {
            @LazyInjected var cart: Cart

            init(container: Container) {
                _cart = LazyInjected(from: container)  // or: $cart.container = container
            }
        }

        @Test func anInitializerChoosesTheContainer() throws {
            let checkout = Container(name: "checkout", modules: CheckoutModule())
            #expect(try CheckoutViewModel(container: checkout).cart === checkout.resolve(Cart.self))
        }
    }

    /// "Rebinding through the projected value".
    @Test func aTestRebindsAPropertyBeforeItsFirstRead() throws {
        let testContainer = Container(name: "test")
        testContainer.register(PaymentService.self, tag: "sandbox") { _ in FakePaymentService() }
        final class PaymentViewModel {
            @LazyInjected var payments: PaymentService
        }

        let model = PaymentViewModel()
        model.$payments.container = testContainer
        model.$payments.tag = "sandbox"
        #expect(model.payments is FakePaymentService)
    }

    /// "@WeakInjected: for objects someone else owns".
    @Test func aWeakPropertyReadsNilOnceTheContainerLetsGo() throws {
        let container = Container(name: "app")
        final class CheckoutView {
            @WeakInjected var coordinator: CheckoutCoordinator?
        }
        container.register(CheckoutCoordinator.self, lifetime: .singleton) { _ in CheckoutCoordinator() }

        let view = CheckoutView()
        view.$coordinator.container = container
        view.coordinator?.start()  // the container's singleton
        container.removeAll()  // the container lets it go
        assert(view.coordinator == nil)  // the property reads nil, and does not resolve again
        #expect(view.coordinator == nil)
    }

    /// "Optional properties".
    @Test func optionalPropertiesAreNilWhenNothingIsRegistered() throws {
        final class ScreenModel {
            @Injected var analytics: Analytics?  // nil when nothing is registered
            @LazyInjected var debugMenu: DebugMenu?  // nil at the first read when nothing is registered
        }
        let model = Container.$current.withValue(Container(name: "empty")) { ScreenModel() }
        #expect(model.analytics == nil)
        #expect(Container.$current.withValue(Container(name: "empty")) { model.debugMenu } == nil)
    }

    /// "Pitfall: @Injected and initializers": compiled, never made (it would stop the program
    /// when `Container.current` cannot resolve `Cart`).
    final class Model {
        @Injected var cart: Cart
        init(container: Container) {
            _cart = Injected(from: container)  // too late: `Injected()` already ran
        }
    }
}
