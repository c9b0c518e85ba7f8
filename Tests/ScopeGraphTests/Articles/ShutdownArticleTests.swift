import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Shutdown article (Sources/ScopeGraph/ScopeGraph.docc/Shutdown.md), as the
// article shows it; Scripts/docs/check-articles.py fails when the two differ. A line that ends in
// `// hidden in the docs` is left out of the comparison. The server example is
// Sources/scopegraph-server itself; the override scope's example is in ScopeGraphTestingTests.

@Suite struct ShutdownArticleTests {
    /// What the examples' hooks and `log` write, in order.
    final class Journal: Sendable {
        private let lines = Guarded<[String]>([])
        var entries: [String] { lines.withLock { $0 } }
        func note(_ line: String) { lines.withLock { $0.append(line) } }
        func error(_ line: String) { note(line) }
    }
    final class ConnectionPool: Sendable {
        let journal = Journal()
        static func open() async throws -> ConnectionPool { ConnectionPool() }
        func close() async { journal.note("closed") }
    }
    final class Database: Sendable {
        let journal = Journal()
        static func connect() async throws -> Database { Database() }
        func flush() async throws { journal.note("flushed") }
        func disconnect() async { journal.note("disconnected") }
    }
    final class Pool: Sendable {
        let journal = Journal()
        func close() async { journal.note("pool") }
    }
    final class Handler: Sendable {
        let pool: Pool
        init(pool: Pool) { self.pool = pool }
        func finish() async { pool.journal.note("handler") }
    }
    struct HookFailed: Error {}
    struct RequestFailed: Error {}
    final class VendorFeed: Sendable {}
    @MainActor final class CheckoutViewModel {
        let title = "Checkout"
        var ran = false
        func run() async throws { ran = true }
    }

    @Test func aServerClosesItsPool() async throws {
        let app = Container(name: "server")
        app.register(ConnectionPool.self, lifetime: .singleton) { _ in try await ConnectionPool.open() }
            .onShutdown { pool in await pool.close() }

        let pool = try await app.resolveAsync(ConnectionPool.self)

        try await app.shutdown()  // closes the request scopes still open, then the pool
        #expect(pool.journal.entries == ["closed"])
    }

    @Test func hooksOfOneRegistrationRunInTheOrderAdded() async throws {
        let app = Container(name: "app")
        app.register(Database.self, lifetime: .singleton) { _ in try await Database.connect() }
            .onShutdown { db in try await db.flush() }
            .onShutdown { db in await db.disconnect() }
        let database = try await app.resolveAsync(Database.self)
        try await app.shutdown()
        #expect(database.journal.entries == ["flushed", "disconnected"])
    }

    /// "Order": descendants first, then each container's instances newest first.
    @Test func requestHandlersCloseBeforeTheRootsPool() async throws {
        let root = Container(name: "root")
        root.register(Pool.self, lifetime: .singleton) { _ in Pool() }
            .onShutdown { pool in await pool.close() }
        root.register(Handler.self, lifetime: .perContainer) { r in Handler(pool: try r.resolve()) }
            .onShutdown { handler in await handler.finish() }

        let first = root.makeChild(name: "request-1")
        let second = root.makeChild(name: "request-2")
        _ = try first.resolve(Handler.self)
        _ = try second.resolve(Handler.self)
        let pool = try root.resolve(Pool.self)  // hidden in the docs

        try await root.shutdown()
        // request-2's handler, request-1's handler, then the root's pool
        #expect(pool.journal.entries == ["handler", "handler", "pool"])
        #expect(first.isShutDown && second.isShutDown)
    }

    @Test func aFailedShutdownListsEveryHookThatThrew() async throws {
        let app = Container(name: "app")
        let log = Journal()
        app.register(Database.self, lifetime: .singleton) { _ in try await Database.connect() }
            .onShutdown { _ in throw HookFailed() }
        _ = try await app.resolveAsync(Database.self)
        do {
            try await app.shutdown()
        } catch let error as ShutdownError {
            for failure in error.failures {
                log.error("\(failure.key) in \(failure.container): \(failure.error)")
            }
        }
        #expect(log.entries == ["Database in app: HookFailed()"])
    }

    /// "Races and what a shut-down container refuses".
    @Test func aLookupThroughALinkToAShutDownContainerThrows() async throws {
        let app = Container(name: "app")
        let catalog = app.makeChild(name: "catalog")
        let vendor = app.makeChild(name: "vendor")
        vendor.register(VendorFeed.self) { _ in VendorFeed() }
        catalog.collaborate(with: vendor)
        try await vendor.shutdown()
        print(vendor.isShutDown, catalog.isShutDown)  // true false
        let error = try #require(throws: ResolutionError.self) {  // hidden in the docs
            _ = try catalog.resolve(VendorFeed.self)  // throws ResolutionError, kind .containerShutDown
        }  // hidden in the docs
        #expect(error.kind == .containerShutDown)
        #expect(vendor.isShutDown && !catalog.isShutDown)
    }

    /// "In an app: a scope per screen".
    @MainActor
    final class CheckoutScreen {
        var title = ""

        func show(in app: Container) async throws {
            try await app.withScope(name: "checkout-screen") { screen in
                let model = try await screen.resolveAsync(CheckoutViewModel.self)
                title = model.title  // main-actor state, no hop
                try await model.run()  // the screen's scope is open while this runs
            }
            // the screen's cached instances have been closed here
        }
    }

    @MainActor @Test func aScreenRunsInAScopeOfItsOwn() async throws {
        let app = Container(name: "app")
        app.register(CheckoutViewModel.self, lifetime: .perContainer, mainActorFactory: { _ in CheckoutViewModel() })
        let screen = CheckoutScreen()
        try await screen.show(in: app)
        #expect(screen.title == "Checkout")
    }

    /// "The three error outcomes": here both the body and the scope's shutdown fail.
    @Test func aBodyAndAShutdownThatBothFailGiveAScopeError() async throws {
        let app = Container(name: "app")
        let log = Journal()
        app.register(Database.self, lifetime: .perContainer) { _ in try await Database.connect() }
            .onShutdown { _ in throw HookFailed() }
        func handle(_ scope: Container) async throws {
            _ = try await scope.resolveAsync(Database.self)
            throw RequestFailed()
        }
        do {
            try await app.withScope(name: "request") { scope in try await handle(scope) }
        } catch let error as ScopeError {
            log.error("request failed: \(error.bodyError); closing it failed too: \(error.shutdownError)")
        } catch let error as ShutdownError {
            log.error("request served, closing it failed: \(error)")
        } catch {
            log.error("request failed: \(error)")
        }
        #expect(log.entries.count == 1)
        #expect(log.entries.first?.hasPrefix("request failed: RequestFailed(); closing it failed too: ") == true)
    }
}
