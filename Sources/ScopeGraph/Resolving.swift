/// Something that resolves services: a `Container`, or the `Resolver` a factory receives.
///
/// ```swift
/// let api = try container.resolve(APIClient.self)
/// let primary: Database = try container.resolve(tag: "primary")
/// let session = try container.resolve(Session.self, tag: nil, arguments: userID, token)
/// ```
public protocol Resolving: Sendable {
    /// Resolves the instance registered for `type` and `tag`.
    /// - Parameters:
    ///   - type: The service type to resolve.
    ///   - tag: The tag of the registration; `nil` for the untagged one. There is no fallback
    ///     from a tag to the untagged registration.
    /// - Returns: The instance, built or taken from a cache according to its lifetime.
    /// - Throws: `ResolutionError` describing the deepest failure, with the resolution path.
    func resolve<T>(_ type: T.Type, tag: ServiceTag?) throws -> T

    /// Resolves the instance registered for `type`, `tag` and the types of `arguments`,
    /// passing the arguments to the factory.
    /// - Parameters:
    ///   - type: The service type to resolve.
    ///   - tag: The tag of the registration, or `nil`.
    ///   - arguments: Runtime arguments, any number; their static types are part of the key.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`; `.argumentMismatch` when the type and tag are registered
    ///   only with other argument types.
    func resolve<T, each A>(_ type: T.Type, tag: ServiceTag?, arguments: repeat each A) throws -> T
}

extension Resolving {
    /// Resolves `T`, inferred from context or given explicitly.
    ///
    /// ```swift
    /// let logger: Logger = try container.resolve()
    /// object.optionalDelegate = try resolver.resolve()   // Optional<T> resolves T's key
    /// ```
    /// - Parameters:
    ///   - type: The service type; inferred when omitted.
    ///   - tag: The tag of the registration, or `nil` for the untagged one.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`.
    public func resolve<T>(_ type: T.Type = T.self, tag: ServiceTag? = nil) throws -> T {
        try resolve(type, tag: tag)
    }

    /// Resolves `T` when something is registered for it, and returns `nil` when nothing is.
    ///
    /// Only a missing registration for the requested key gives `nil`: a registration that is
    /// found but fails (a throwing factory, a missing dependency) still throws.
    /// - Parameters:
    ///   - type: The service type; inferred when omitted.
    ///   - tag: The tag of the registration, or `nil`.
    /// - Returns: The instance, or `nil` when no registration answers the key.
    /// - Throws: `ResolutionError` for any failure other than "not registered".
    public func resolveIfRegistered<T>(_ type: T.Type = T.self, tag: ServiceTag? = nil) throws -> T? {
        if let engine = self as? any ResolutionEntryPoint {
            return try engine.resolveIfRegisteredValue(Key(T.self, tag: tag), as: T.self)
        }
        do {
            return try resolve(type, tag: tag)
        } catch let error as ResolutionError {
            if case .notRegistered = error.kind, error.path.count <= 1 { return nil }
            throw error
        }
    }

    /// Resolves one instance for every registration of `T` that the lookup walk reaches, with
    /// any tag and no runtime arguments: nearest container first, and within a container in
    /// registration order. A key registered in a nearer container hides the same key further away.
    /// A registration that answers for `T` under several tags (through `implements`) gives one
    /// instance, at the first of its keys the walk meets.
    ///
    /// A type of your own that conforms to `Resolving` (a test double) has no registrations to
    /// walk: for it, this is the untagged instance when there is one (as `resolveIfRegistered`
    /// finds it), and an empty array otherwise.
    /// - Parameter type: The service type; inferred when omitted.
    /// - Returns: The instances, possibly none.
    /// - Throws: `ResolutionError` when one of them fails to resolve.
    public func resolveAll<T>(_ type: T.Type = T.self) throws -> [T] {
        if let engine = self as? any ResolutionEntryPoint {
            return try engine.resolveAllValues(T.self)
        }
        return try resolveIfRegistered(type).map { [$0] } ?? []
    }
}

/// The container and the resolver implement the extension methods of `Resolving` directly.
protocol ResolutionEntryPoint: Resolving {
    func resolveIfRegisteredValue<T>(_ key: Key, as type: T.Type) throws -> T?
    func resolveAllValues<T>(_ type: T.Type) throws -> [T]
    /// The instance for `key` from an async resolve, carried to the caller's isolation.
    func resolveAsyncValue<T>(_ key: Key, as type: T.Type, arguments: Arguments?) async throws -> Carried<T>
}
