extension Container {
    /// Drops every instance cached in this container and keeps every registration: the next
    /// resolve builds afresh.
    ///
    /// What goes: the `singleton`, `weakSingleton` and `eagerSingleton` instances of this
    /// container's registrations, and every `perContainer` instance cached here, including those
    /// of registrations that an ancestor owns. What stays: the registrations, their `implements`
    /// forwards and `onResolved` blocks, the collaboration links, and the caches of every other
    /// container (a child's `perContainer` instances are the child's; reset it, or use
    /// `Registration.resetCachedInstances()`).
    ///
    /// ```swift
    /// // The user logs out: drop the session's instances, keep the wiring.
    /// session.resetCachedInstances()
    /// let fresh = try session.resolve(UserProfile.self)   // built again
    /// ```
    ///
    /// The instances are released before this returns, so one that nobody else holds is freed
    /// by then. No `onShutdown` hook runs (hooks are for `shutdown()`), and a later `shutdown()`
    /// does not run the hooks of an instance dropped here. An eager singleton dropped here is
    /// built again by its next resolve or by the next `bootstrap()`. A resolve running on
    /// another thread at the same moment may still return an instance it found or built before
    /// the reset.
    public func resetCachedInstances() {
        resetCachedInstances { _ in true }
    }

    /// Drops the instances cached in this container for one lifetime, and keeps every
    /// registration: a `.singleton` reset drops this container's singletons and leaves its weak
    /// and eager singletons and its `perContainer` instances alone.
    ///
    /// ```swift
    /// app.resetCachedInstances(lifetime: .perContainer)   // only the per-container instances
    /// ```
    ///
    /// `.unique` and `.graph` cache nothing in a container, so resetting them does nothing.
    /// Otherwise this is `resetCachedInstances()` restricted to `lifetime`: only this
    /// container's caches, no hooks run, released before it returns.
    /// - Parameter lifetime: The lifetime whose cached instances go.
    public func resetCachedInstances(lifetime: Lifetime) {
        resetCachedInstances { $0 == lifetime }
    }

    /// Drops the owner-rooted instances of this container's registrations whose lifetime
    /// passes `includes`, and this container's `perContainer` instances when `.perContainer`
    /// passes it.
    private func resetCachedInstances(where includes: (Lifetime) -> Bool) {
        let dropsPerContainer = includes(.perContainer)
        let (owned, perContainer) = withState { state -> ([AnyEntry], [AnySlot]) in
            var seen: Set<UInt64> = []
            // An entry appears once per key it answers (its own and its forwards).
            let owned = state.registrations.values.map(\.entry).filter { entry in
                entry.lifetime.isOwnerRooted && includes(entry.lifetime) && entry.owner === self
                    && seen.insert(entry.serial).inserted
            }
            guard dropsPerContainer, !state.perContainer.isEmpty else { return (owned, []) }
            return (owned, state.perContainer.removeAll())
        }
        for entry in owned { entry.ownerSlot?.clear() }
        guard !perContainer.isEmpty else { return }
        // Lookups memoized with the dropped slots must not keep using them.
        invalidateLookups()
        // Released here, after every lock: a deinit may resolve.
        for slot in perContainer { slot.clear() }
    }
}

extension Registration {
    /// Drops the instances cached for this registration everywhere, and keeps the
    /// registration: its owner's `singleton`, `weakSingleton` or `eagerSingleton` instance, and
    /// its `perContainer` instance in every container that holds one. The next resolve builds
    /// afresh.
    ///
    /// ```swift
    /// let session = app.register(Session.self, lifetime: .singleton) { _ in Session() }
    /// // The user logs out:
    /// session.resetCachedInstances()
    /// ```
    ///
    /// The instances are released before this returns; no `onShutdown` hook runs, and a later
    /// `shutdown()` does not run the hooks of an instance dropped here. Instances of other
    /// registrations that were built from the dropped one (a singleton that took it in its
    /// initializer) keep what they were given: reset them too if they must see a new one. For
    /// a `unique` or `graph` registration, and for one that was removed or replaced, there is
    /// nothing to drop.
    public func resetCachedInstances() {
        entry.dropCachedInstances()
    }
}
