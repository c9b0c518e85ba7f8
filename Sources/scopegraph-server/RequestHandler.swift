import Synchronization

/// A request-scoped handler (`perContainer`): one per request scope, holding a connection from
/// the pool until its scope shuts it down.
final class RequestHandler: Sendable {
    let pool: ConnectionPool
    let connection: Connection
    private let closed = Atomic<Bool>(false)

    /// Live handlers: every request's handler is freed with its scope.
    static var alive: Int { live.load(ordering: .relaxed) }
    private static let live = Atomic<Int>(0)

    init(pool: ConnectionPool) throws {
        self.pool = pool
        self.connection = try pool.borrow()
        Self.live.add(1, ordering: .relaxed)
    }

    deinit { Self.live.subtract(1, ordering: .relaxed) }

    /// Handles one request.
    func handle(_ request: Int) async -> Int {
        await Task.yield()
        return request &* 2
    }

    /// Returns the connection (the registration's `onShutdown` hook).
    func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        pool.giveBack(connection)
    }
}
