/// One problem `Container.validate()` found with one registration.
///
/// An issue names the registration (its key and the container that owns it), how serious the
/// problem is, and what is wrong in one line:
///
/// ```
/// error [checkout] Checkout: missing dependency: Checkout -> PaymentGateway; nothing is registered for PaymentGateway (searched: checkout -> app)
/// ```
public struct ValidationIssue: Sendable, Hashable, CustomStringConvertible {
    /// How serious an issue is.
    public enum Severity: Sendable, Hashable, CustomStringConvertible {
        /// Resolving the registration fails: the app would throw at run time.
        case error
        /// The registration resolves, but probably not as intended, or was not checked.
        case warning

        /// `error` or `warning`.
        public var description: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            }
        }
    }

    /// How serious the issue is.
    public let severity: Severity
    /// The key of the registration the issue is about.
    public let key: ServiceKey
    /// The name of the container that owns the registration.
    public let container: String
    /// What is wrong, in one line.
    public let message: String
    /// The resolution path that shows the problem, from the registration down to the failing
    /// key (for a cycle, ending with the repeated key; for a lifetime warning, down to the
    /// `weakSingleton`). Empty when the problem has no path.
    public let path: [ServiceKey]

    /// Creates an issue. `Container.validate()` creates these; tests and tools may too.
    /// - Parameters:
    ///   - severity: How serious the issue is.
    ///   - key: The key of the registration the issue is about.
    ///   - container: The name of the container that owns the registration.
    ///   - message: What is wrong, in one line.
    ///   - path: The resolution path that shows the problem, if any.
    public init(severity: Severity, key: ServiceKey, container: String, message: String, path: [ServiceKey] = []) {
        self.severity = severity
        self.key = key
        self.container = container
        self.message = message
        self.path = path
    }

    /// One line: `severity [container] key: message`.
    public var description: String { "\(severity) [\(container)] \(key): \(message)" }
}
