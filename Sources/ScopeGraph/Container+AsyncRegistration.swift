extension Container {
    /// Registers an async factory for `type` (and `tag`): chosen by the compiler when the
    /// closure awaits.
    ///
    /// ```swift
    /// app.register(Database.self, lifetime: .singleton) { r in
    ///     try await Database.open(at: try r.resolve(Config.self).databasePath)
    /// }
    /// let db = try await app.resolveAsync(Database.self)
    /// ```
    ///
    /// An async factory runs only in an async resolve (`resolveAsync`, `bootstrapAsync()`). A
    /// synchronous resolve gets its instance once it is cached, and throws `.requiresAsync`
    /// before. A closure isolated to the main actor (`{ @MainActor r in … }`) runs there.
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: A tag that tells this registration apart from others of the same type.
    ///   - lifetime: How long instances live and who shares them; `.graph` by default.
    ///   - factory: Builds the instance; resolves its dependencies through the `Resolver`
    ///     (`resolveAsync` for async ones), which joins this resolve across suspension points.
    /// - Returns: The registration, for `implements`, `onResolved` and `remove`.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver) async throws -> T
    ) -> Registration<T> {
        makeRegistration(Key(T.self, tag: tag), lifetime: lifetime, factory: .async(factory), in: self)
    }

    /// Registers an async factory that takes runtime arguments (see
    /// `register(_:tag:lifetime:factory:)` for async factories).
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: A tag that tells this registration apart from others of the same type.
    ///   - lifetime: How long instances live; `.graph` by default.
    ///   - factory: Builds the instance from the resolver and the arguments.
    /// - Returns: The registration.
    @discardableResult
    public func register<T, each A>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver, repeat each A) async throws -> T
    ) -> Registration<T> {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        return makeRegistration(key, lifetime: lifetime, factory: .asyncUnpacking(factory), in: self)
    }

    /// Registers a synchronous factory isolated to the main actor, for `@MainActor` types
    /// (view models, coordinators, everything in a module with default main-actor isolation).
    ///
    /// ```swift
    /// app.register(ProfileViewModel.self, mainActorFactory: { r in
    ///     ProfileViewModel(api: try r.resolve())
    /// })
    /// ```
    ///
    /// A synchronous resolve on the main actor runs it inline; `resolveAsync` runs it on the
    /// main actor from anywhere; a synchronous resolve off the main actor throws
    /// `.requiresMainActor` (it never blocks waiting for the main thread).
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: A tag that tells this registration apart from others of the same type.
    ///   - lifetime: How long instances live and who shares them; `.graph` by default.
    ///   - mainActorFactory: Builds the instance on the main actor.
    /// - Returns: The registration, for `implements`, `onResolved` and `remove`.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        mainActorFactory: @escaping @MainActor @Sendable (Resolver) throws -> T
    ) -> Registration<T> {
        makeRegistration(Key(T.self, tag: tag), lifetime: lifetime, factory: .mainActor(mainActorFactory), in: self)
    }

    /// Registers a main-actor factory that takes runtime arguments (see
    /// `register(_:tag:lifetime:mainActorFactory:)`).
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: A tag that tells this registration apart from others of the same type.
    ///   - lifetime: How long instances live; `.graph` by default.
    ///   - mainActorFactory: Builds the instance on the main actor from the resolver and the
    ///     arguments.
    /// - Returns: The registration.
    @discardableResult
    public func register<T, each A>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        mainActorFactory: @escaping @MainActor @Sendable (Resolver, repeat each A) throws -> T
    ) -> Registration<T> {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        return makeRegistration(key, lifetime: lifetime, factory: .mainActorUnpacking(mainActorFactory), in: self)
    }
}
