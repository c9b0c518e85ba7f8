extension Resolving {
    /// Resolves the untagged registration of `type` that takes runtime arguments of these
    /// types, passing them to its factory: `resolve(_:tag:arguments:)` without the `tag: nil`.
    ///
    /// ```swift
    /// container.register(Session.self) { (r, userID: Int, token: String) in
    ///     Session(userID: userID, token: token, api: try r.resolve())
    /// }
    /// let session = try container.resolve(Session.self, arguments: 42, "token")
    /// let same: Session = try container.resolve(arguments: 42, "token")
    /// ```
    ///
    /// At least one argument is needed: without arguments, `resolve(Session.self)` is the
    /// argument-free resolve. For a tagged registration, use `resolve(_:tag:arguments:)`.
    /// - Parameters:
    ///   - type: The service type; inferred when omitted.
    ///   - first: The first runtime argument.
    ///   - rest: The other runtime arguments, any number. The static types of all the
    ///     arguments, in order, are part of the key.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`; `.argumentMismatch` when `type` is registered only with
    ///   other argument types.
    public func resolve<T, First, each Rest>(
        _ type: T.Type = T.self, arguments first: First, _ rest: repeat each Rest
    ) throws -> T {
        try resolve(type, tag: nil, arguments: first, repeat each rest)
    }

    /// Resolves the untagged registration of `type` that takes runtime arguments of these
    /// types, in an async resolve: `resolveAsync(_:tag:arguments:)` without the `tag: nil`.
    ///
    /// ```swift
    /// app.register(Connection.self) { (r, host: String, port: Int) in try await Connection.open(host, port) }
    /// let connection = try await app.resolveAsync(Connection.self, arguments: "db.local", 5432)
    /// ```
    ///
    /// At least one argument is needed, as for `resolve(_:arguments:_:)`.
    /// - Parameters:
    ///   - type: The service type; inferred when omitted.
    ///   - first: The first runtime argument.
    ///   - rest: The other runtime arguments; the static types of all of them are part of the key.
    ///   - isolation: The caller's actor, where the instance is returned.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`, or `CancellationError` when the calling task is cancelled
    ///   while it waits for another resolve's build.
    public func resolveAsync<T, First, each Rest>(
        _ type: T.Type = T.self, arguments first: First, _ rest: repeat each Rest,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> T {
        // Not a call to `resolveAsync(_:tag:arguments:)`: forwarding a re-formed pack to another
        // async generic function aborts at run time with Swift 6.3 ("freed pointer was not the
        // last allocation", task-allocator order). The key and the arguments are packed here,
        // before any suspension, exactly as that function does.
        guard let engine = self as? any ResolutionEntryPoint else {
            return try resolve(type, tag: nil, arguments: first, repeat each rest)
        }
        let key = Key(T.self, tag: nil, arguments: Key.argumentTypes(First.self, repeat (each Rest).self))
        let packed = Arguments(first, repeat each rest)
        return try await engine.resolveAsyncValue(key, as: type, arguments: packed).value
    }
}
