import Foundation

/// Writes the demo's log lines. Registered in the core container as an instance (a `singleton`).
struct Logger: Sendable {
    /// Where the lines go.
    enum Destination: Sendable {
        /// Standard output, with the rest of the demo's output.
        case standardOutput
        /// Standard error, when standard output carries something else (`--graph`).
        case standardError
    }

    /// Printed before every line.
    let prefix: String
    /// Where the lines go.
    var destination = Destination.standardOutput

    /// Prints one line.
    /// - Parameter message: The text to print.
    func log(_ message: String) {
        switch destination {
        case .standardOutput: print("\(prefix) \(message)")
        case .standardError: printToStandardError("\(prefix) \(message)")
        }
    }
}

/// Settings the features read. Registered in the core container as a `singleton`.
struct AppConfig: Sendable {
    /// The currency prices are shown in.
    let currency: String
    /// The tax rate applied at checkout, as a fraction.
    let taxRate: Double
}

/// Counts what the app does. An `eagerSingleton`: `bootstrapAsync()` (or `bootstrap()`) starts
/// it before anything resolves, so it sees every event from the first one on. Its registration
/// auto-wires `start(logger:)`.
final class Telemetry: @unchecked Sendable {
    // @unchecked: `recorded` is only read or written with `lock` held.
    private let lock = NSLock()
    private var recorded: [String] = []

    /// Starts telemetry; the factory of its registration calls this.
    /// - Parameter logger: Where the start is announced.
    /// - Returns: A running telemetry.
    static func start(logger: Logger) -> Telemetry {
        logger.log("telemetry started")
        return Telemetry()
    }

    /// Records one event.
    /// - Parameter event: A short name, such as `"cart.add"`.
    func record(_ event: String) { lock.withLock { recorded.append(event) } }

    /// The events recorded so far, oldest first.
    var events: [String] { lock.withLock { recorded } }
}
