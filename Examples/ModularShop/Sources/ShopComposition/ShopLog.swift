import ShopInterfaces
import Synchronization

/// A logger that keeps every line, and prints it too when asked to.
///
/// The app prints the lines as they come; the tests read them back with ``lines``.
public final class ShopLog: ShopLogger {
    private let recorded = Mutex<[String]>([])
    private let echoes: Bool

    /// Creates an empty log.
    /// - Parameter echoes: Whether to print each line as it is logged, prefixed with `[log]`.
    public init(echoes: Bool = false) {
        self.echoes = echoes
    }

    /// Every line logged so far, oldest first.
    public var lines: [String] { recorded.withLock { $0 } }

    /// Records one line, and prints it when the log echoes.
    /// - Parameter line: What happened.
    public func log(_ line: String) {
        recorded.withLock { $0.append(line) }
        if echoes { print("  [log] \(line)") }
    }
}
