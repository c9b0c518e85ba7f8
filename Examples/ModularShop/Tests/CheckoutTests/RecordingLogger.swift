import ShopInterfaces
import Synchronization

/// A logger that keeps every line, standing in for the composition root's logger.
final class RecordingLogger: ShopLogger {
    private let recorded = Mutex<[String]>([])

    /// Every line logged so far, oldest first.
    var lines: [String] { recorded.withLock { $0 } }

    func log(_ line: String) {
        recorded.withLock { $0.append(line) }
    }
}
