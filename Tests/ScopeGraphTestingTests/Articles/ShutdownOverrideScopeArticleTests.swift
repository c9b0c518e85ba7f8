import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

// The override scope's example of the Shutdown article
// (Sources/ScopeGraph/ScopeGraph.docc/Shutdown.md, "Override scopes in tests"), as the article
// shows it; Scripts/docs/check-articles.py fails when the two differ.

@Suite struct ShutdownOverrideScopeArticleTests {
    final class OrderStore: Sendable {
        private let closed = Locked(false)
        var isClosed: Bool { closed.withLock { $0 } }
        static func inMemory() -> OrderStore { OrderStore() }
        func close() async { closed.withLock { $0 = true } }
    }
    final class Checkout: Sendable {
        let store: OrderStore
        init(store: OrderStore) { self.store = store }
        func placeOrder() {}
    }

    let app: Container = {
        let app = Container(name: "app")
        app.register(OrderStore.self, lifetime: .singleton) { _ in OrderStore() }
        app.register(Checkout.self) { r in Checkout(store: try r.resolve()) }
        return app
    }()

    @Test func checkoutPlacesAnOrder() async throws {
        try await app.withOverrides {
            $0.register(OrderStore.self, lifetime: .singleton) { _ in OrderStore.inMemory() }
                .onShutdown { store in await store.close() }
        } operation: {
            try await app.resolveAsync(Checkout.self).placeOrder()
        }
        // the scope's in-memory store has been closed here; the container's instances are untouched
        #expect(try !app.resolve(OrderStore.self).isClosed)  // hidden in the docs
    }

    /// The same, keeping the scope's store to check that the hook closed it.
    @Test func theScopesStoreIsClosedWhenTheScopeEnds() async throws {
        let store = try await app.withOverrides {
            $0.register(OrderStore.self, lifetime: .singleton) { _ in OrderStore.inMemory() }
                .onShutdown { store in await store.close() }
        } operation: {
            try await app.resolveAsync(Checkout.self).store
        }
        #expect(store.isClosed)
    }
}
