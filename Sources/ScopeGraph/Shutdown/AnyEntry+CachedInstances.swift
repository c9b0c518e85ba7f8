extension AnyEntry {
    /// Records, in their containers' shutdown logs, the instances this registration caches
    /// now: its owner's slot and its `perContainer` slots. Called when its first `onShutdown`
    /// hook is added; publication records only registrations that have hooks
    /// (`BuildCoordinator.publish`), so nothing cached before would be closed otherwise.
    ///
    /// Under the coordinator's lock, which publication takes too: an instance published before
    /// is found in its slot here; one published after sees the hook and records itself (the
    /// log keeps one record of each). An override scope's slots are not reached.
    func recordCachedInstances() {
        // The containers are held until the end: none is released under the lock.
        let owner = self.owner
        var slots: [AnySlot] = []
        if owner != nil, let ownerSlot { slots.append(ownerSlot) }
        let holders = perContainerHolders
        for holder in holders {
            if let slot = holder.withState({ $0.perContainer[serial] }) { slots.append(slot) }
        }
        guard !slots.isEmpty else { return }
        BuildCoordinator.shared.withLock { releases in
            for slot in slots { recordPublishedInstance(of: slot, into: &releases) }
        }
        withExtendedLifetime((holders, owner)) {}
    }

    /// Records the instance `slot` publishes now, if any, in its container's shutdown log
    /// (once: the log keeps one record of each). Call with the coordinator's lock held, which
    /// publication under the lock takes too; the box goes to `releases`: a box cleared
    /// meanwhile may hold the last reference to an instance whose deinit resolves.
    func recordPublishedInstance(of slot: AnySlot, into releases: inout DeferredReleases) {
        guard let logOwner = slot.logOwner(keepingIn: &releases), let box = Reclamation.read({ slot.publishedBox() })
        else { return }
        releases.append(box)
        logOwner.shutdownLog.recordIfAbsent(
            ShutdownLog.Record(entry: self, sequence: PublishedBox.sequence(of: box), slot: slot))
    }
}
