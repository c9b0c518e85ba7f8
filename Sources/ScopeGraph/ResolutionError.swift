/// Why a resolve failed, where, and what to do about it.
///
/// Every failure in a resolve path is thrown as one `ResolutionError` about the deepest cause:
/// a missing dependency three levels down is reported once, with the whole path, not wrapped
/// once per level.
///
/// ```swift
/// do {
///     let app = try container.resolve(App.self)
/// } catch let error as ResolutionError {
///     print(error)          // multi-line: what, path, containers searched, suggestions
///     if case .notRegistered = error.kind { … }
/// }
/// ```
public struct ResolutionError: Error, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: every stored property is immutable and Sendable except `Kind.factoryFailed`'s
    // `any Error`, which is only read.

    /// What went wrong.
    public enum Kind: @unchecked Sendable {
        // @unchecked: the payload is the error a user factory threw; it is only read.

        /// Nothing answers the key anywhere the lookup walk visited.
        case notRegistered
        /// The key's factory is still running in this resolve: a constructor cycle.
        case circularDependency
        /// Registered for the type and tag, but with other argument types.
        case argumentMismatch
        /// A forwarded registration produced an instance that is not of the requested type.
        case typeMismatch
        /// A factory or `onResolved` block threw this error.
        case factoryFailed(any Error)
        /// An async factory was reached from a synchronous resolve (and its instance is not
        /// cached yet): resolve with `resolveAsync`, or build it first with `bootstrapAsync()`.
        case requiresAsync
        /// A main-actor factory was reached by a synchronous resolve off the main actor: resolve
        /// with `resolveAsync`, or on the main actor.
        case requiresMainActor
        /// The resolve started from, or its lookup reached, a container whose `shutdown()` has
        /// begun.
        case containerShutDown
    }

    /// What went wrong.
    public let kind: Kind
    /// The key that failed.
    public let key: ServiceKey
    /// From the top-level request down to the failing key.
    public let path: [ServiceKey]
    /// Names of the containers visited, in lookup order.
    public let searched: [String]
    /// Close matches and remedies, one sentence each.
    public let suggestions: [String]

    /// Creates an error. The library creates these; tests and wrappers may too.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - key: The key that failed.
    ///   - path: From the top-level request down to the failing key.
    ///   - searched: Names of the containers visited, in lookup order.
    ///   - suggestions: Close matches and remedies.
    public init(kind: Kind, key: ServiceKey, path: [ServiceKey], searched: [String] = [], suggestions: [String] = []) {
        self.kind = kind
        self.key = key
        self.path = path
        self.searched = searched
        self.suggestions = suggestions
    }

    /// A multi-line explanation: what failed, the path, the containers searched, suggestions.
    public var description: String {
        var lines = [headline]
        if !path.isEmpty {
            lines.append("  path: " + path.map(\.description).joined(separator: " -> "))
        }
        if !searched.isEmpty {
            lines.append("  searched: " + searched.joined(separator: " -> "))
        }
        for suggestion in suggestions { lines.append("  suggestion: " + suggestion) }
        return lines.joined(separator: "\n")
    }

    private var headline: String {
        switch kind {
        case .notRegistered:
            "ResolutionError: nothing is registered for \(key)."
        case .circularDependency:
            "ResolutionError: circular dependency: \(key) is requested while its own factory is still running."
        case .argumentMismatch:
            "ResolutionError: nothing is registered for \(key); \(ServiceKey(typeName: key.typeName, tag: key.tag)) is registered only with other runtime argument types."
        case .typeMismatch:
            "ResolutionError: the registration answering \(key) produced an instance that is not of type \(key.typeName)."
        case .factoryFailed(let underlying):
            "ResolutionError: the factory of \(key) threw: \(underlying)"
        case .requiresAsync:
            "ResolutionError: \(key) has an async factory, which a synchronous resolve cannot run."
        case .requiresMainActor:
            "ResolutionError: \(key) has a main-actor factory, which a synchronous resolve off the main actor cannot run."
        case .containerShutDown:
            "ResolutionError: \(key) cannot be resolved: a container its lookup needs has been shut down."
        }
    }
}

extension ResolutionError.Kind: CustomStringConvertible {
    /// The case's name: `notRegistered`, `circularDependency`, …
    public var description: String {
        switch self {
        case .notRegistered: "notRegistered"
        case .circularDependency: "circularDependency"
        case .argumentMismatch: "argumentMismatch"
        case .typeMismatch: "typeMismatch"
        case .factoryFailed(let error): "factoryFailed(\(error))"
        case .requiresAsync: "requiresAsync"
        case .requiresMainActor: "requiresMainActor"
        case .containerShutDown: "containerShutDown"
        }
    }
}
