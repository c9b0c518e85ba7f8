/// Resolves `T` each time it is called: what a factory asks for when it must create instances
/// later, or more than one.
///
/// Any registration of `T` makes `Provider<T>` resolvable too, with the same tag; nothing
/// needs registering for it. The provider resolves from the container the request for it
/// started from (the owner, in a singleton's factory), with the usual lifetimes and errors: a
/// `unique` registration gives a new instance per call, a `singleton` the same one.
///
/// ```swift
/// container.register(Session.self) { _ in Session() }
/// container.register(LoginFlow.self) { r in LoginFlow(makeSession: try r.resolve(Provider<Session>.self)) }
/// // later, in LoginFlow:
/// let session = try makeSession()
/// ```
///
/// Called while the resolve that made it still runs on the same thread (in a factory or an
/// `onResolved` block), a call joins that resolve, so a `graph` instance is shared with it;
/// after that, each call is a top-level resolve of its own. The provider holds its container
/// weakly: once the container is deallocated, a call throws `.notRegistered` saying so.
/// Resolving `Provider<T>` throws `.notRegistered` when nothing is registered for `T`.
public struct Provider<T>: Sendable {
    private let resolution: DeferredResolution

    /// Resolves `T`.
    /// - Returns: The instance, as `resolve(T.self, tag:)` from the provider's container gives it.
    /// - Throws: `ResolutionError` (`.requiresAsync` when `T`'s graph needs an async resolve:
    ///   call ``resolveAsync(isolation:)`` instead).
    public func callAsFunction() throws -> T {
        try resolution.resolve(as: T.self)
    }

    /// Resolves `T` in an async resolve, for registrations with async or main-actor factories.
    ///
    /// ```swift
    /// let database = try await databases.resolveAsync()
    /// ```
    /// - Parameter isolation: The caller's actor, where the instance is returned.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`, or `CancellationError`.
    public func resolveAsync(isolation: isolated (any Actor)? = #isolation) async throws -> T {
        try await resolution.resolveAsync(as: T.self, isolation: isolation)
    }
}

extension Provider: DeferredResolvable {
    static var resolvedType: Any.Type { T.self }
    static func make(_ resolution: DeferredResolution) -> Provider<T> { Provider(resolution: resolution) }
}
