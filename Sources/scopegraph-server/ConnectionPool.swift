import Synchronization

/// The app-wide connection pool: opened once with `await`, shared by every request, closed at
/// shutdown. Counts what it hands out and takes back, so the run can check that every request
/// returned what it borrowed.
final class ConnectionPool: Sendable {
    private struct State {
        var open = true
        var borrowed = 0
        var returned = 0
    }

    private let state = Mutex(State())
    let size: Int

    private init(size: Int) { self.size = size }

    /// Opens the pool (a real one would connect to the database here).
    static func open(size: Int) async throws -> ConnectionPool {
        try await Task.sleep(for: .milliseconds(2))
        return ConnectionPool(size: size)
    }

    /// Borrows a connection for one request.
    func borrow() throws -> Connection {
        try state.withLock { state in
            guard state.open else { throw PoolClosed() }
            state.borrowed += 1
            return Connection(id: state.borrowed)
        }
    }

    /// Takes a connection back.
    func giveBack(_ connection: Connection) {
        state.withLock { $0.returned += 1 }
    }

    /// Closes the pool: no more connections.
    func close() async {
        state.withLock { $0.open = false }
    }

    /// Connections borrowed and returned so far, and whether the pool is open.
    var counts: (borrowed: Int, returned: Int, open: Bool) {
        state.withLock { ($0.borrowed, $0.returned, $0.open) }
    }
}

/// One borrowed connection.
struct Connection: Sendable {
    let id: Int
}

/// Thrown when a request borrows from a closed pool.
struct PoolClosed: Error {}
