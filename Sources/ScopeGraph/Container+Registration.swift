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
    @inlinable @discardableResult
    public func register<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        factory: @escaping @Sendable (Resolver) throws -> T
    ) -> Registration<T> {
        // Inlined so that the caller, specialized for `T`, creates the entry and the handle
        // with cached type metadata instead of a runtime lookup per registration.
        if lifetime == .unique {
            // A record, not an entry, until something needs one (see PlainRegistration.swift).
            let key = Key(T.self, tag: tag)
            let (sequence, owner) = storePlain(key, factory: FactoryBox(factory).words)
            return Registration(plain: key, sequence: sequence, owner: owner)
        }
        let entry = Entry(tag: tag, lifetime: lifetime, owner: self, factory: factory)
        storeOwn(entry)
        return Registration(entry: entry)
    }

    /// Stores a new entry of this container under its own key.
    @usableFromInline
    func storeOwn(_ entry: AnyEntry) { store(entry, under: entry.key) }

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
        return store === self ? Registration(entry: entry) : Registration(entry: entry, store: store)
    }

    package func store(_ entry: AnyEntry, under key: Key) {
        if entry.lifetime.isOwnerRooted, !hasHadOwnerRootedRegistrations.load(ordering: .relaxed) {
            hasHadOwnerRootedRegistrations.store(true, ordering: .relaxed)
        }
        store(
            Registered(entry: entry, sequence: Self.nextSequence()), under: key)
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
        // The old snapshot, and a registration this key displaced, are released when the
        // statement ends, after the lock.
        let (replaced, next, _, displaced) = withState { state -> (AnyEntry?, [Container], MemoSnapshot?, AnyEntry?) in
            if let condition, !condition(&state) { return (nil, [], nil, nil) }
            guard let old = state.registrations.updateValue(registered, forKey: key) else {
                // A new key drops nothing: forget this container's lookups under the same lock.
                let forgotten = forgetLookups(&state, dropping: [])
                return (nil, forgotten.next, forgotten.retired, nil)
            }
            guard let oldEntry = old.entry else {
                // Last wins. A record was never looked up past its first lookup (that would
                // have made it an entry), so no memo holds it: nothing else to forget.
                return (nil, [], nil, nil)
            }
            if oldEntry !== entry, oldEntry.key == key {
                // Last wins: the replaced registration goes entirely, its forwarded keys too.
                for forward in oldEntry.forwards where state.registrations[forward]?.entry === oldEntry {
                    state.registrations[forward] = nil
                }
                return (oldEntry, [], nil, nil)
            }
            // Another registration's forwarded key, taken over.
            let forgotten = forgetLookups(&state, dropping: [])
            return (nil, forgotten.next, forgotten.retired, oldEntry)
        }
        if let replaced {
            release([replaced])
        } else if !next.isEmpty {
            invalidateLookups(of: next, after: self, dropping: [])
        }
        // A registration that forwarded this key no longer answers for it: it stops listing it.
        if let displaced, displaced !== entry { displaced.removeForward(key) }
    }

    /// Removes a registration (its own key and the types it forwards) and releases the
    /// instances cached for it.
    /// - Parameter registration: The handle `register` returned.
    public func remove<T>(_ registration: Registration<T>) {
        // A handle on a record makes it an entry first (if it is still here): removing is rare.
        guard let entry = registration.currentEntry else { return }
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
            defer {
                state.registrations = [:]
                state.perContainer = SmallMap()
            }
            return (state.registrations.values.compactMap(\.entry), state.perContainer.allValues)
        }
        for slot in slots { slot.clear() }
        release(entries)
    }

    /// Releases the instances of removed or replaced entries, and forgets lookups that may
    /// have answered with them, here and in every container whose lookups can reach here.
    func release(_ entries: [AnyEntry]) {
        // Retire first (a build already running then publishes nothing), unlink from every
        // memo, then clear: no resolve can put an instance back afterwards.
        for entry in entries { entry.retire() }
        invalidateLookups(dropping: Set(entries.map { ObjectIdentifier($0) }))
        for entry in entries { entry.ownerSlot?.clear() }
    }

    /// Forgets memoized lookups here and in every container whose lookups can reach this one
    /// (descendants and containers collaborating with it, transitively), dropping their
    /// `perContainer` instances of `dropped` entries.
    func invalidateLookups(dropping dropped: Set<ObjectIdentifier> = []) {
        // The old snapshot is released when the statement ends, after the lock.
        let (forgotten, _) = withState { state in
            let forgotten = forgetLookups(&state, dropping: dropped)
            return (forgotten, forgotten.retired)
        }
        for slot in forgotten.slots { slot.clear() }
        if !forgotten.next.isEmpty { invalidateLookups(of: forgotten.next, after: self, dropping: dropped) }
    }

    /// Goes on with an invalidation that started at `origin` (already done) and reached
    /// `next`: every container reachable from there is done once.
    private func invalidateLookups(
        of next: [Container], after origin: Container, dropping dropped: Set<ObjectIdentifier>
    ) {
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(origin)]
        var pending: [Container] = []
        for other in next where seen.insert(ObjectIdentifier(other)).inserted { pending.append(other) }
        while let container = pending.popLast() {
            let (forgotten, _) = container.withState { state in
                let forgotten = container.forgetLookups(&state, dropping: dropped)
                return (forgotten, forgotten.retired)
            }
            for slot in forgotten.slots { slot.clear() }
            for other in forgotten.next where seen.insert(ObjectIdentifier(other)).inserted { pending.append(other) }
        }
    }

    /// What forgetting one container's lookups leaves to do after its lock: the containers
    /// whose lookups reach it, the `perContainer` slots to clear, the snapshot to release.
    private struct ForgottenLookups {
        let next: [Container]
        let slots: [AnySlot]
        let retired: MemoSnapshot?
    }

    /// Forgets this container's memoized and pending lookups and drops its `perContainer`
    /// slots of `dropped` entries. Call with the lock held.
    private func forgetLookups(_ state: inout State, dropping dropped: Set<ObjectIdentifier>) -> ForgottenLookups {
        if !state.pendingLookups.isEmpty { state.pendingLookups = [:] }
        state.memoCount = 0
        // Written only under the lock: storing only a change spares registrations an atomic
        // exchange.
        let transparent = state.registrations.isEmpty && state.collaborators.isEmpty
        if isTransparent.load(ordering: .relaxed) != transparent {
            isTransparent.store(transparent, ordering: .sequentiallyConsistent)
        }
        let retired = memo.load(ordering: .sequentiallyConsistent) == 0 ? nil : swapMemo(0)
        state.generation &+= 1
        var slots: [AnySlot] = []
        if !state.perContainer.isEmpty {
            for id in dropped { if let slot = state.perContainer.remove(id) { slots.append(slot) } }
        }
        let next =
            state.children.isEmpty && state.dependents.isEmpty
            ? [] : state.children.liveInAnyOrder + state.dependents.compactMap { $0.value }
        return ForgottenLookups(next: next, slots: slots, retired: retired)
    }

    /// The `perContainer` slot of `entry` in this container, created on first use. A slot made
    /// now is claimed for `context` to build when `context` has not coordinated yet in its
    /// resolve (`BuildCoordinator.claimFresh`), sparing it a round trip through the
    /// coordinator's lock; `claimed` says so.
    func perContainerSlot(for entry: AnyEntry, claimingFor context: ResolutionContext) -> (
        slot: AnySlot, claimed: Bool
    ) {
        withState { state in
            let (slot, isNew) = Self.perContainerSlot(for: entry, in: &state)
            // Still under this container's lock: no other thread can find the slot yet.
            guard isNew, !context.usedCoordinator else { return (slot, false) }
            BuildCoordinator.shared.claimFresh(slot, for: context)
            return (slot, true)
        }
    }

    /// The `perContainer` slot of `entry` in `state`, created on first use (`isNew`). Call with
    /// the lock held.
    static func perContainerSlot(for entry: AnyEntry, in state: inout State) -> (slot: AnySlot, isNew: Bool) {
        let id = ObjectIdentifier(entry)
        if let slot = state.perContainer[id] { return (slot, false) }
        let slot = entry.makeSlot()
        state.perContainer.set(slot, for: id)
        return (slot, true)
    }
}
