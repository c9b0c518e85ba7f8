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
        store.store(entry, under: key)
        return Registration(entry: entry, store: store)
    }

    package func store(_ entry: AnyEntry, under key: Key) {
        let replaced: AnyEntry? = state.withLock { state in
            let old = state.registrations[key]?.entry
            state.registrations[key] = Registered(entry: entry, sequence: state.nextSequence)
            state.nextSequence += 1
            guard let old, old !== entry, old.key == key else { return nil }
            // Last wins: the replaced registration goes entirely, its forwarded keys too.
            for forward in old.forwards where state.registrations[forward]?.entry === old {
                state.registrations[forward] = nil
            }
            return old
        }
        if let replaced { release([replaced]) } else { invalidateLookups() }
    }

    /// Removes a registration (its own key and the types it forwards) and releases the
    /// instances cached for it.
    /// - Parameter registration: The handle `register` returned.
    public func remove<T>(_ registration: Registration<T>) {
        let entry = registration.entry
        let removed = state.withLock { state -> Bool in
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
        let (entries, slots) = state.withLock { state -> ([AnyEntry], [AnySlot]) in
            defer {
                state.registrations = [:]
                state.perContainer = [:]
            }
            return (state.registrations.values.map(\.entry), Array(state.perContainer.values))
        }
        for slot in slots { slot.clear() }
        release(entries)
    }

    /// Releases the instances of removed or replaced entries, and forgets lookups that may
    /// have answered with them, here and in every container whose lookups can reach here.
    func release(_ entries: [AnyEntry]) {
        // Retire first (a build already running then publishes nothing), unlink from every
        // memo, then clear: no resolve can put an instance back afterwards.
        for entry in entries { entry.retirement.retire() }
        invalidateLookups(dropping: Set(entries.map { ObjectIdentifier($0) }))
        for entry in entries { entry.ownerSlot?.clear() }
    }

    /// Forgets memoized lookups here and in every container whose lookups can reach this one
    /// (descendants and containers collaborating with it, transitively), dropping their
    /// `perContainer` instances of `dropped` entries.
    func invalidateLookups(dropping dropped: Set<ObjectIdentifier> = []) {
        // Allocates nothing for a container that no other container looks up through.
        var pending: [Container] = []
        var seen: Set<ObjectIdentifier> = []
        var container = self
        while true {
            // The old snapshot is released when this statement ends, after the lock.
            let (next, slots, _) = container.state.withLock { state -> ([Container], [AnySlot], MemoSnapshot?) in
                if !state.pendingLookups.isEmpty { state.pendingLookups = [:] }
                state.memoCount = 0
                container.isTransparent.store(
                    state.registrations.isEmpty && state.collaborators.isEmpty, ordering: .sequentiallyConsistent)
                let retired = container.swapMemo(0)
                state.generation &+= 1
                var slots: [AnySlot] = []
                for id in dropped { if let slot = state.perContainer.removeValue(forKey: id) { slots.append(slot) } }
                let next =
                    state.children.isEmpty && state.dependents.isEmpty
                    ? [] : (state.children + state.dependents).compactMap(\.value)
                return (next, slots, retired)
            }
            for slot in slots { slot.clear() }
            if !next.isEmpty, seen.isEmpty { seen.insert(ObjectIdentifier(self)) }
            for other in next where seen.insert(ObjectIdentifier(other)).inserted { pending.append(other) }
            guard let following = pending.popLast() else { return }
            container = following
        }
    }

    /// The `perContainer` slot of `entry` in this container, created on first use.
    func erasedPerContainerSlot(for entry: AnyEntry) -> AnySlot {
        state.withLock { state in
            let id = ObjectIdentifier(entry)
            if let slot = state.perContainer[id] { return slot }
            let slot = entry.makeSlot()
            state.perContainer[id] = slot
            return slot
        }
    }
}
