import ScopeGraph

/// Registers overrides for one container inside `Container.withOverrides(_:operation:)` or an
/// `.overrides(_:_:)` trait.
///
/// It has the same `register` overloads as `Container` (tags, lifetimes, runtime arguments)
/// and returns the same `Registration`, so `implements` and `onResolved` work on overrides.
/// An override answers before the container's own registration of the same key, only for the
/// task that runs the scope and its child tasks.
///
/// ```swift
/// try container.withOverrides({ overrides in
///     overrides.register(Clock.self) { _ in FixedClock(now: .distantPast) }
///     overrides.register(Session.self) { (_, id: Int) in Session.fake(id) }
/// }) {
///     #expect(try container.resolve(Report.self).date == .distantPast)
/// }
/// ```
///
/// Use the registrar only inside the closure that received it: registering once the scope's
/// operation has started stops the program (`preconditionFailure`).
public struct OverrideRegistrar {
    /// The container whose lookups these overrides answer.
    public let container: Container
    let recorder: OverrideRecorder

    /// Overrides the registration of `type` (and `tag`) in ``container``.
    ///
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: The tag of the key to override, or `nil` for the untagged key.
    ///   - lifetime: How long the fake lives; `.graph` by default, as for `Container`. Cached
    ///     lifetimes are cached in the override scope, once per scope.
    ///   - factory: Builds the fake; resolves its dependencies through the `Resolver`, which
    ///     sees the scope's overrides.
    /// - Returns: The override's registration, for `implements` and `onResolved`.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver) throws -> T
    ) -> Registration<T> {
        container.makeRegistration(Key(T.self, tag: tag), lifetime: lifetime, factory: .plain(factory), in: recorder)
    }

    /// Overrides a registration that takes runtime arguments; the argument types, in order,
    /// are part of the key, as with `Container.register`.
    ///
    /// ```swift
    /// overrides.register(Session.self) { (_, userID: Int, token: String) in
    ///     Session.fake(userID: userID)
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: The tag of the key to override, or `nil`.
    ///   - lifetime: How long the fake lives; `.graph` by default.
    ///   - factory: Builds the fake from the resolver and the arguments.
    /// - Returns: The override's registration.
    @discardableResult
    public func register<T, each A>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver, repeat each A) throws -> T
    ) -> Registration<T> {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        return container.makeRegistration(key, lifetime: lifetime, factory: .unpacking(factory), in: recorder)
    }

    /// Overrides a registration with an async factory, as `Container`'s async `register` does.
    ///
    /// ```swift
    /// try await app.withOverrides({ $0.register(Database.self) { _ in try await FakeDatabase.open() } }) {
    ///     …
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: The tag of the key to override, or `nil`.
    ///   - lifetime: How long the fake lives; `.graph` by default.
    ///   - factory: Builds the fake; awaited by `resolveAsync`.
    /// - Returns: The override's registration.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver) async throws -> T
    ) -> Registration<T> {
        container.makeRegistration(Key(T.self, tag: tag), lifetime: lifetime, factory: .async(factory), in: recorder)
    }

    /// Overrides a registration with an async factory that takes runtime arguments.
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: The tag of the key to override, or `nil`.
    ///   - lifetime: How long the fake lives; `.graph` by default.
    ///   - factory: Builds the fake from the resolver and the arguments.
    /// - Returns: The override's registration.
    @discardableResult
    public func register<T, each A>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver, repeat each A) async throws -> T
    ) -> Registration<T> {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        return container.makeRegistration(key, lifetime: lifetime, factory: .asyncUnpacking(factory), in: recorder)
    }

    /// Overrides a registration with a main-actor factory, as `Container`'s
    /// `register(_:tag:lifetime:mainActorFactory:)` does.
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: The tag of the key to override, or `nil`.
    ///   - lifetime: How long the fake lives; `.graph` by default.
    ///   - mainActorFactory: Builds the fake on the main actor.
    /// - Returns: The override's registration.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        mainActorFactory: @escaping @MainActor @Sendable (Resolver) throws -> T
    ) -> Registration<T> {
        container.makeRegistration(
            Key(T.self, tag: tag), lifetime: lifetime, factory: .mainActor(mainActorFactory), in: recorder)
    }

    /// Overrides a registration with a main-actor factory that takes runtime arguments.
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: The tag of the key to override, or `nil`.
    ///   - lifetime: How long the fake lives; `.graph` by default.
    ///   - mainActorFactory: Builds the fake on the main actor from the resolver and the arguments.
    /// - Returns: The override's registration.
    @discardableResult
    public func register<T, each A>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        mainActorFactory: @escaping @MainActor @Sendable (Resolver, repeat each A) throws -> T
    ) -> Registration<T> {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        return container.makeRegistration(
            key, lifetime: lifetime, factory: .mainActorUnpacking(mainActorFactory), in: recorder)
    }

    /// Overrides the registration of `type` (and `tag`) with an object that already exists, as
    /// `Container.register(_:tag:instance:)` does: every resolve inside the scope returns
    /// `instance`.
    ///
    /// ```swift
    /// let api = FakeAPI()
    /// try app.withOverrides({ $0.register((any API).self, instance: api) }) { … }
    /// ```
    /// - Parameters:
    ///   - type: The type to answer for; the instance's static type when omitted.
    ///   - tag: The tag of the key to override, or `nil` for the untagged key.
    ///   - instance: The fake to hand out; the scope keeps it until it ends.
    /// - Returns: The registration, for `implements` and `onResolved`.
    @discardableResult
    public func register<T>(_ type: T.Type = T.self, tag: ServiceTag? = nil, instance: T) -> Registration<T> {
        let kept = KeptInstance(value: instance)
        return register(type, tag: tag, lifetime: .singleton) { _ in kept.value }
    }
}

/// Forwards registrations to a scope's override store while the scope is being set up, and
/// refuses them once the scope runs (its table is then read concurrently without a lock).
final class OverrideRecorder: RegistrationStore {
    private let target: any RegistrationStore
    private let isOpen = Locked(true)

    init(_ target: any RegistrationStore) { self.target = target }

    func store(_ entry: AnyEntry, under key: Key) {
        isOpen.withLock { isOpen in
            guard isOpen else {
                preconditionFailure(
                    "ScopeGraphTesting: an OverrideRegistrar was used after its scope started; register overrides (and call implements on them) inside the overrides closure only"
                )
            }
            target.store(entry, under: key)
        }
    }

    /// Refuses any further registration.
    func close() { isOpen.withLock { $0 = false } }
}
