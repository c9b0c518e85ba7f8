/// Lets a property wrapper see that its type is `Optional<Wrapped>`, and resolve it so that a
/// missing registration gives `nil`.
protocol InjectableOptional {
    /// The optional's instance, `nil` when nothing is registered for it: neither the optional
    /// type itself nor `Wrapped` answers the lookup. A registration that is found but fails,
    /// or `Wrapped` registered only with runtime arguments, still throws.
    /// - Parameters:
    ///   - container: The container to resolve from.
    ///   - tag: The tag to resolve, or `nil`.
    /// - Returns: The instance, or `nil`.
    /// - Throws: `ResolutionError`.
    static func resolveInjected(from container: Container, tag: ServiceTag?) throws -> Self
}

extension Optional: InjectableOptional {
    static func resolveInjected(from container: Container, tag: ServiceTag?) throws -> Self {
        // A registration of the optional itself answers first, then `Wrapped`'s (as `resolve`).
        if let value = try container.resolveIfRegistered(Self.self, tag: tag) { return value }
        // Asked again for `Wrapped` itself, whose lookup reports `Wrapped` registered only with
        // other argument types as `.argumentMismatch`, where the optional's lookup gives `nil`.
        return try container.resolveIfRegistered(Wrapped.self, tag: tag)
    }
}

extension InjectionBox {
    /// Resolves the property's instance. For an optional property (`@Injected var x: T?`), a key
    /// that nothing answers gives `nil`, as `resolveIfRegistered` does: neither `Optional<T>`
    /// nor `T` is registered. A registration that is found but fails still throws.
    /// - Parameters:
    ///   - container: The container to resolve from.
    ///   - tag: The tag to resolve, or `nil`.
    /// - Returns: The instance, or `nil` (as `T`) for an optional property with nothing registered.
    /// - Throws: `ResolutionError`.
    static func resolveInjected(from container: Container, tag: ServiceTag?) throws -> T {
        guard let optional = T.self as? any InjectableOptional.Type else {
            return try container.resolve(T.self, tag: tag)
        }
        // Checked: `optional` is `T.self`, so its `resolveInjected` returns a `T`.
        return try optional.resolveInjected(from: container, tag: tag) as! T
    }
}
