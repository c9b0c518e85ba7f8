import Foundation

/// Writes the demo's log lines. Registered in the core container as a `singleton`.
struct Logger: Sendable {
    /// Printed before every line.
    let prefix: String

    /// Prints one line.
    /// - Parameter message: The text to print.
    func log(_ message: String) { print("\(prefix) \(message)") }
}

/// Settings the features read. Registered in the core container as a `singleton`.
struct AppConfig: Sendable {
    /// The currency prices are shown in.
    let currency: String
    /// The tax rate applied at checkout, as a fraction.
    let taxRate: Double
}

/// Counts what the app does. An `eagerSingleton`: `bootstrap()` starts it before anything
/// resolves, so it sees every event from the first one on.
final class Telemetry: @unchecked Sendable {
    // @unchecked: `recorded` is only read or written with `lock` held.
    private let lock = NSLock()
    private var recorded: [String] = []

    /// Starts telemetry; the factory of its registration calls this.
    /// - Parameter logger: Where the start is announced.
    /// - Returns: A running telemetry.
    static func start(logger: Logger) -> Telemetry {
        logger.log("telemetry started by bootstrap()")
        return Telemetry()
    }

    /// Records one event.
    /// - Parameter event: A short name, such as `"cart.add"`.
    func record(_ event: String) { lock.withLock { recorded.append(event) } }

    /// The events recorded so far, oldest first.
    var events: [String] { lock.withLock { recorded } }
}
