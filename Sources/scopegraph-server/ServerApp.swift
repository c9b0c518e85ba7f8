import ScopeGraph
import Synchronization

/// The server's composition root: an app-wide async connection pool and a request-scoped
/// handler, each closed by an `onShutdown` hook that also writes what it closed to `closed`.
struct ServerApp {
    let root: Container
    let closed: ClosedLog

    init(poolSize: Int) {
        let closed = ClosedLog()
        let root = Container(name: "server")
        root.register(ConnectionPool.self, lifetime: .singleton) { _ in try await ConnectionPool.open(size: poolSize) }
            .onShutdown { pool in
                await pool.close()
                closed.note("ConnectionPool")
            }
        root.register(RequestHandler.self, lifetime: .perContainer) { r in
            try RequestHandler(pool: try await r.resolveAsync())
        }
        .onShutdown { handler in
            handler.close()
            closed.note("RequestHandler")
        }
        self.root = root
        self.closed = closed
    }

    /// Serves one request in a scope of its own, shut down when the request ends.
    func serve(_ request: Int) async throws -> Int {
        try await root.withScope(name: "request-\(request)") { scope in
            try await scope.resolveAsync(RequestHandler.self).handle(request)
        }
    }
}

/// What the hooks closed, in order, and how many of each.
final class ClosedLog: Sendable {
    private let state = Mutex<(order: [String], counts: [String: Int])>(([], [:]))

    func note(_ what: String) {
        state.withLock { state in
            if state.order.last != what { state.order.append(what) }
            state.counts[what, default: 0] += 1
        }
    }

    /// Runs of the same kind collapsed: `RequestHandler, ConnectionPool`.
    var order: [String] { state.withLock { $0.order } }
    func count(of what: String) -> Int { state.withLock { $0.counts[what] ?? 0 } }
}
