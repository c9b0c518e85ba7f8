/// What `ScopeGraphTesting`'s snapshots capture: a container's registrations and links.
package struct CapturedState: @unchecked Sendable {
    // @unchecked: entries are immutable apart from their own locked parts; weak references are
    // written once.
    let registrations: [Key: Container.Registered]
    let collaborators: [WeakContainer]
    /// Each registration's forwarded keys and `onResolved` blocks at capture time: they live on
    /// the registration, which a restore puts back as it is, so they are restored apart.
    let extras: [(entry: AnyEntry, extras: AnyEntry.CapturedExtras)]
}

extension Container {
    /// This container's registrations and collaboration links, shared (no instance is copied).
    package func captureState() -> CapturedState {
        let captured = withState { state in
            (registrations: state.registrations, collaborators: state.collaborators)
        }
        var seen: Set<UInt64> = []
        let extras = captured.registrations.values.compactMap { registered -> (AnyEntry, AnyEntry.CapturedExtras)? in
            guard seen.insert(registered.entry.serial).inserted else { return nil }
            return (registered.entry, registered.entry.capturedExtras)
        }
        return CapturedState(
            registrations: captured.registrations, collaborators: captured.collaborators,
            extras: extras.map { (entry: $0.0, extras: $0.1) })
    }

    /// Puts back exactly the captured registrations and links, and empties this container's
    /// caches (singleton, weak, eager and `perContainer` instances).
    package func restoreState(_ captured: CapturedState) {
        // The restored links' live containers come back to be released after the lock.
        let (current, slots, oldLinks, _) = withState {
            state -> (current: [AnyEntry], slots: [AnySlot], links: [WeakContainer], live: [Container]) in
            let old = (
                state.registrations.values.map(\.entry), state.perContainer.removeAll(), state.collaborators
            )
            var restoredLinks = captured.collaborators
            let live = restoredLinks.removeGone()
            state.registrations = captured.registrations
            state.collaborators = restoredLinks
            return (old.0, old.1, old.2, live)
        }
        // Restored links need their reverse links for invalidation; stale reverse links are harmless.
        for link in captured.collaborators where !oldLinks.contains(where: { $0.serial == link.serial }) {
            link.value?.addDependent(self)
        }
        for slot in slots { slot.clear() }
        // `implements` and `onResolved` calls made since the snapshot are undone.
        for (entry, extras) in captured.extras { entry.restoreExtras(extras) }
        let restored = captured.registrations.values.map(\.entry)
        let restoredSerials = Set(restored.map(\.serial))
        // Registrations added since the snapshot go; those replaced or removed since come back.
        for entry in current where !restoredSerials.contains(entry.serial) { entry.retire() }
        for entry in restored { entry.reinstate() }
        for entry in current + restored { entry.dropCachedInstances() }
        // The registrations dropped by the restore are released here, after every lock.
        withExtendedLifetime(current) { invalidateLookups() }
    }
}
