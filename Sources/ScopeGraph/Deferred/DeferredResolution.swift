/// What `Provider<T>` and `Lazy<T>` hold: where to resolve `T` from, and the resolve that made
/// them, both weakly (a singleton keeping a provider must not keep its container alive).
struct DeferredResolution: Sendable {
    private weak let container: Container?
    private weak let context: ResolutionContext?
    /// The key of `T` (its tag included).
    let key: Key
    /// The container's name, for the error once it is gone.
    private let containerName: String

    init(container: Container, context: ResolutionContext?, key: Key) {
        self.container = container
        self.context = context
        containerName = container.name
        self.key = key
    }

    /// A resolver of the resolve that made the value, while that resolve still runs on this
    /// thread (its requests join it); else one that starts a resolve of its own.
    func resolver() throws -> Resolver {
        guard let container else {
            throw ResolutionError(
                kind: .notRegistered, key: key.serviceKey, path: [key.serviceKey],
                suggestions: [
                    "the container '\(containerName)' this Provider or Lazy resolves from has been deallocated; keep it alive as long as the values that hold a Provider or Lazy from it"
                ])
        }
        return Resolver(container: container, context: context)
    }

    func resolve<T>(as type: T.Type) throws -> T {
        let resolver = try resolver()
        return try resolver.resolveKey(key, as: T.self)
    }

    func resolveAsync<T>(as type: T.Type, isolation: isolated (any Actor)?) async throws -> T {
        let resolver = try resolver()
        return try await resolver.resolveAsyncValue(key, as: T.self, arguments: nil).value
    }
}

/// `Provider<T>` and `Lazy<T>`: resolvable without a registration of their own when `T` is
/// registered (see `ResolutionContext.resolve`).
protocol DeferredResolvable {
    /// The `T` they resolve.
    static var resolvedType: Any.Type { get }
    /// A value resolving `key` (of `T`) through `resolver`.
    static func make(_ resolution: DeferredResolution) -> Self
}
