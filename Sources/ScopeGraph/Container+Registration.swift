import Synchronization

extension Container: RegistrationStore {
    /// Registers a factory for `type` (and `tag`).
    ///
    /// Registering the same key again in this container replaces the earlier registration
    /// (last wins) and drops its cached instance.
    ///
    /// ```swift
    /// container.register(Database.self, lifetime: .singleton) { _ in try SQLite(path: dbPath) }
    /// container.register(Repository.self) { r in Repository(db: try r.resolve()) }
    /// ```
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: A tag that tells this registration apart from others of the same type.
    ///   - lifetime: How long instances live and who shares them; `.graph` by default.
    ///   - factory: Builds the instance; resolves its dependencies through the `Resolver`.
    /// - Returns: The registration, for `implements`, `onResolved` and `remove`.
    @discardableResult
    public func register<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver) throws -> T
    ) -> Registration<T> {
        makeRegistration(Key(T.self, tag: tag), lifetime: lifetime, factory: .plain(factory), in: self)
    }

    /// Registers a factory that takes runtime arguments, any number of any types.
    ///
    /// The argument types, in order, are part of the key: resolve with
    /// `resolve(Session.self, tag: nil, arguments: userID, token)`.
    ///
    /// ```swift
    /// container.register(Session.self) { (r, userID: Int, token: String) in
    ///     Session(userID: userID, token: token, api: try r.resolve())
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type to answer for; inferred from the factory when omitted.
    ///   - tag: A tag that tells this registration apart from others of the same type.
    ///   - lifetime: How long instances live; cached lifetimes keep the first instance built,
    ///     whatever the arguments of later resolves, and `graph` instances with arguments are
    ///     not shared.
    ///   - factory: Builds the instance from the resolver and the arguments.
    /// - Returns: The registration.
    @discardableResult
    public func register<T, each A>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver, repeat each A) throws -> T
    ) -> Registration<T> {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        return makeRegistration(key, lifetime: lifetime, factory: .unpacking(factory), in: self)
    }

    /// Creates an entry owned by this container and stores it in `store` (this container, or
    /// an override scope's table).
    package func makeRegistration<T>(
        _ key: Key, lifetime: Lifetime, factory: Factory<T>, in store: any RegistrationStore
    ) -> Registration<T> {
        let entry = Entry(key: key, lifetime: lifetime, owner: self, factory: factory)
        // A plain registration made in a test scope that captures this container goes there.
        var store = store
        if store === self, ScopeActivity.mayBeActive, let capture = ResolutionScope.capturing(self) { store = capture }
        store.store(entry, under: key)
        return store === self ? Registration(entry: entry) : Registration(entry: entry, store: store)
    }

    package func store(_ entry: AnyEntry, under key: Key) {
        store(Registered(entry: entry, sequence: Self.nextSequence()), under: key)
    }

    /// Makes `entry`, registered here, also answer for `key` (`implements`), in one step with
    /// checking that it still is: a `remove` at the same time either sees the forwarded key
    /// (and removes it too) or makes this do nothing.
    func storeForward(_ entry: AnyEntry, under key: Key) {
        let registered = Registered(entry: entry, sequence: Self.nextSequence())
        store(registered, under: key) { state in
            guard state.registrations[entry.key]?.entry === entry else { return false }
            entry.addForward(key)
            return true
        }
    }

    /// Stores `registered` under `key` (its own key, or one it forwards); when `condition`
    /// (checked under the lock, before anything changes) is false, stores nothing.
    func store(_ registered: Registered, under key: Key, if condition: ((inout State) -> Bool)? = nil) {
        let entry = registered.entry
        // What this container's lookups forgot, under the same lock: released after it.
        var forgotten: (next: [Container], snapshot: MemoSnapshot?, records: [Key: MemoRecord]) = ([], nil, [:])
        let outcome = withState { state -> StoreOutcome in
            if let condition, !condition(&state) { return .unchanged }
            guard let old = state.registrations.updateValue(registered, forKey: key)?.entry, old !== entry else {
                forgotten = forgetLookups(&state)
                return .added
            }
            guard old.key == key else {
                forgotten = forgetLookups(&state)
                return .tookOverForward(from: old)
            }
            // Last wins: the replaced registration goes entirely, its forwarded keys too.
            for forward in old.forwards where state.registrations[forward]?.entry === old {
                state.registrations[forward] = nil
            }
            return .replaced(old)
        }
        switch outcome {
        case .unchanged:
            return
        case .added:
            invalidateLookups(of: forgotten.next)
        case .replaced(let old):
            release([old])
        case .tookOverForward(let old):
            invalidateLookups(of: forgotten.next)
            // A registration that forwarded this key no longer answers for it: it stops listing it.
            old.removeForward(key)
        }
    }

    private enum StoreOutcome {
        case unchanged
        case added
        case replaced(AnyEntry)
        case tookOverForward(from: AnyEntry)
    }

    /// The next place in registration order, process-wide.
    static func nextSequence() -> Int { sequences.wrappingAdd(1, ordering: .relaxed).oldValue }

    private static let sequences = Atomic<Int>(0)

    /// Releases removed or replaced registrations: retires them (a build already running then
    /// publishes nothing, and their cached instances are dropped, here and in every container
    /// holding a `perContainer` instance of them), and makes every container whose lookups may
    /// have found them forget those lookups.
    func release(_ entries: [AnyEntry]) {
        for entry in entries { entry.retire() }
        invalidateLookups()
    }

    /// Removes a registration (its own key and the types it forwards) and releases the
    /// instances cached for it.
    /// - Parameter registration: The handle `register` returned.
    public func remove<T>(_ registration: Registration<T>) {
        let entry = registration.entry
        if let capture = registration.store?.value as? RegistrationCapture, capture.remove(entry) { return }
        let removed = withState { state -> Bool in
            var found = false
            for key in [entry.key] + entry.forwards where state.registrations[key]?.entry === entry {
                state.registrations[key] = nil
                found = true
            }
            return found
        }
        if removed { release([entry]) }
    }

    /// Removes every registration of this container and every instance cached in it,
    /// including `perContainer` instances of registrations owned by ancestors.
    public func removeAll() {
        let (entries, slots) = withState { state -> ([AnyEntry], [AnySlot]) in
            defer { state.registrations = [:] }
            return (state.registrations.values.map(\.entry), state.perContainer.removeAll())
        }
        for slot in slots { slot.clear() }
        release(entries)
    }
}
