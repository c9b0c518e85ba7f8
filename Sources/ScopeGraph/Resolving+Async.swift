extension Resolving {
    /// Resolves `type` and `tag` in an async resolve: runs a synchronous factory inline, awaits
    /// an async one, and runs a main-actor one on the main actor, whichever of them the
    /// dependency graph mixes.
    ///
    /// ```swift
    /// app.register(Database.self, lifetime: .singleton) { _ in try await Database.open(path) }
    /// let db = try await app.resolveAsync(Database.self)
    /// ```
    ///
    /// Called on a `Resolver` inside an async factory, it joins that factory's resolve: cycles
    /// are detected and `graph` instances shared across suspension points. A cached instance is
    /// built once however many tasks ask; a cancelled caller stops waiting with
    /// `CancellationError` while the build goes on for the others.
    /// - Parameters:
    ///   - type: The service type; inferred when omitted.
    ///   - tag: The tag of the registration, or `nil`.
    ///   - isolation: The caller's actor, where the instance is returned.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`, or `CancellationError` when the calling task is cancelled
    ///   while it waits for another resolve's build.
    public func resolveAsync<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws -> T {
        guard let engine = self as? any ResolutionEntryPoint else { return try resolve(type, tag: tag) }
        return try await engine.resolveAsyncValue(Key(T.self, tag: tag), as: type, arguments: nil).value
    }

    /// Resolves `type`, `tag` and runtime arguments in an async resolve (see
    /// `resolveAsync(_:tag:)`).
    /// - Parameters:
    ///   - type: The service type.
    ///   - tag: The tag of the registration, or `nil`.
    ///   - arguments: Runtime arguments; their static types are part of the key.
    ///   - isolation: The caller's actor, where the instance is returned.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`, or `CancellationError`.
    public func resolveAsync<T, each A>(
        _ type: T.Type, tag: ServiceTag?, arguments: repeat each A, isolation: isolated (any Actor)? = #isolation
    ) async throws -> T {
        guard let engine = self as? any ResolutionEntryPoint else {
            return try resolve(type, tag: tag, arguments: repeat each arguments)
        }
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        let packed = Arguments(repeat each arguments)
        return try await engine.resolveAsyncValue(key, as: type, arguments: packed).value
    }
}
