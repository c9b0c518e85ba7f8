extension Container {
    /// Makes this container, and every container whose lookups may pass through it (its
    /// descendants, and containers that collaborate with it, transitively), forget their
    /// memoized lookups. Follows every change of registrations or links.
    func invalidateLookups() {
        // The old snapshot and the forgotten records are released after the lock (see below).
        let (next, _, _) = withState { state in forgetLookups(&state) }
        invalidateLookups(of: next)
    }

    /// `invalidateLookups` for the containers `next` (and theirs, transitively) that this
    /// container's `forgetLookups` returned: a registration forgets this container's lookups
    /// under the lock it stores with, and a container nobody looks through (the usual case)
    /// has nothing more to do.
    func invalidateLookups(of next: [Container]) {
        guard !next.isEmpty else { return }
        var seen: Set<UInt64> = [serial]
        var pending: [Container] = []
        for other in next where seen.insert(other.serial).inserted { pending.append(other) }
        while let container = pending.popLast() {
            // The old snapshot and the forgotten records (which may hold the last reference to a
            // registration removed elsewhere) are released when the statement ends, after the lock.
            let (next, _, _) = container.withState { state in container.forgetLookups(&state) }
            for other in next where seen.insert(other.serial).inserted { pending.append(other) }
        }
    }

    /// Forgets this container's memoized and pending lookups. Call with the lock held; returns
    /// the containers to tell next, the old snapshot and the pending records, to release after
    /// unlocking.
    func forgetLookups(_ state: inout State) -> ([Container], MemoSnapshot?, [Key: MemoRecord]) {
        let pending = state.pendingLookups
        if !pending.isEmpty { state.pendingLookups = [:] }
        state.memoCount = 0
        let transparent = state.registrations.isEmpty && state.collaborators.isEmpty
        if isTransparent.load(ordering: .relaxed) != transparent {
            isTransparent.store(transparent, ordering: .sequentiallyConsistent)
        }
        let retired = memo.load(ordering: .sequentiallyConsistent) == 0 ? nil : swapMemo(0)
        state.generation &+= 1
        let next = state.children.live + state.dependents.compactMap { $0.value }
        return (next, retired, pending)
    }

    /// This container's `perContainer` slot for `entry` (made now if there is none), and
    /// whether it was made now. A new slot must then be noted with `notePerContainerSlot`
    /// after unlocking.
    func perContainerSlot(for entry: AnyEntry, in state: inout State) -> (slot: AnySlot, isNew: Bool) {
        if let slot = state.perContainer[entry.serial] { return (slot, false) }
        let slot = entry.makeSlot(in: self)
        state.perContainer.add(slot, for: entry)
        return (slot, true)
    }

    /// This container's `perContainer` slot for `entry`, made now if there is none.
    func perContainerSlot(for entry: AnyEntry) -> AnySlot {
        let (slot, isNew) = withState { state in perContainerSlot(for: entry, in: &state) }
        if isNew { notePerContainerSlot(of: entry) }
        return slot
    }

    /// Tells `entry` that this container now holds a `perContainer` slot of it, so that
    /// retiring the registration drops it; drops it at once if it was retired meanwhile.
    func notePerContainerSlot(of entry: AnyEntry) {
        entry.notePerContainerHolder(self)
        if entry.retirement.isRetired { dropPerContainerInstance(of: entry) }
    }

    /// Drops this container's `perContainer` instance of a retired registration.
    func dropPerContainerInstance(of entry: AnyEntry) {
        let slot = withState { state in state.perContainer.remove(serial: entry.serial) }
        // Lookups memoized with that slot must not keep using it.
        if slot != nil { invalidateLookups() }
        slot?.clear()
    }
}
