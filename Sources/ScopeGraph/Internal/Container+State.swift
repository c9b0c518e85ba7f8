/// What `ScopeGraphTesting`'s snapshots capture: a container's registrations and links.
package struct CapturedState: @unchecked Sendable {
    // @unchecked: entries are immutable apart from their own locked parts; weak references are
    // written once.
    let registrations: [Key: Container.Registered]
    let nextSequence: Int
    let collaborators: [WeakContainer]
}

extension Container {
    /// This container's registrations and collaboration links, shared (no instance is copied).
    package func captureState() -> CapturedState {
        state.withLock { state in
            CapturedState(
                registrations: state.registrations, nextSequence: state.nextSequence,
                collaborators: state.collaborators)
        }
    }

    /// Puts back exactly the captured registrations and links, and empties this container's
    /// caches (singleton, weak, eager and `perContainer` instances).
    package func restoreState(_ captured: CapturedState) {
        let (current, slots, oldLinks) = state.withLock { state -> ([AnyEntry], [AnySlot], [WeakContainer]) in
            defer {
                state.registrations = captured.registrations
                state.nextSequence = max(state.nextSequence, captured.nextSequence)
                state.collaborators = captured.collaborators.filter { $0.value != nil }
                state.perContainer = SmallMap()
            }
            return (state.registrations.values.map(\.entry), state.perContainer.allValues, state.collaborators)
        }
        // Restored links need their reverse links for invalidation; stale reverse links are harmless.
        for link in captured.collaborators where !oldLinks.contains(where: { $0.id == link.id }) {
            link.value?.state.withLock { state in state.dependents.append(WeakContainer(self)) }
        }
        for slot in slots { slot.clear() }
        let restored = captured.registrations.values.map(\.entry)
        // Registrations replaced or removed since the snapshot come back to life.
        for entry in restored { entry.retirement.reinstate() }
        for entry in current + restored where entry.owner === self { entry.ownerSlot?.clear() }
        invalidateLookups(dropping: Set((current + restored).map { ObjectIdentifier($0) }))
    }
}
