import Synchronization

extension Container {
    /// Finds the entry answering `key` for a lookup starting here: own registrations (after any
    /// overrides of the active scope), then collaborators in link order, then the parent; each
    /// container visited once. Walks without overrides are memoized per starting container.
    ///
    /// A key this container answers itself is memoized from its second lookup on: the first
    /// costs one lock and one hash, so a container whose registrations are each resolved once
    /// pays no memo work at all.
    /// - Throws: `ReachedShutDown` when the walk reaches a container whose shutdown has begun.
    func lookup(_ key: Key, scope: ResolutionScope?) throws(ReachedShutDown) -> AnyEntry? {
        if let scope, scope.hasOverrides { return try walk(key, scope: scope) }
        if let parent, isTransparent.load(ordering: .sequentiallyConsistent) {
            return try parent.lookup(key, scope: scope)
        }
        if memo.load(ordering: .relaxed) != 0, let entry = Reclamation.read({ memoSnapshotEntry(key) }) {
            return entry
        }
        switch localAnswer(key) {
        case .found(let entry):
            return entry
        case .elsewhere(let collaborators, let generation):
            // This container was visited under the lock: the walk goes on from its links.
            var visited = [serial]
            guard let found = try visitBeyond(collaborators, key, scope: nil, visited: &visited) else { return nil }
            let (newSlot, _) = withState { state -> (Bool, MemoSnapshot?) in
                guard state.generation == generation else { return (false, nil) }
                let (slot, isNew) = memoSlot(of: found, in: &state)
                state.pendingLookups[key] = MemoRecord(entry: found, slot: slot)
                return (isNew, rebuildMemoIfDue(&state))
            }
            if newSlot { notePerContainerSlot(of: found) }
            return found
        }
    }

    /// What this container alone answers for `key`: a pending lookup or its own registration,
    /// under one lock (and bookkeeping for the memo), or where the walk goes on.
    private func localAnswer(_ key: Key) -> LocalAnswer {
        // A replaced snapshot is released when the statement ends, after the lock.
        let (answer, newSlot, _) = withState { state -> (LocalAnswer, Bool, MemoSnapshot?) in
            if !state.pendingLookups.isEmpty, let record = state.pendingLookups[key] {
                // Asked again: move the pending lookups into the lock-free snapshot.
                return (.found(record.entry), false, rebuildMemo(&state))
            }
            guard let own = state.registrations[key]?.entry else {
                return (.elsewhere(state.collaborators, state.generation), false, nil)
            }
            guard own.noteLookedUp() else { return (.found(own), false, nil) }
            let (slot, isNew) = memoSlot(of: own, in: &state)
            state.pendingLookups[key] = MemoRecord(entry: own, slot: slot)
            return (.found(own), isNew, rebuildMemoIfDue(&state))
        }
        if newSlot, case .found(let entry) = answer { notePerContainerSlot(of: entry) }
        return answer
    }

    /// What a lookup learned from this container alone, under its lock.
    private enum LocalAnswer {
        /// A pending lookup or an own registration answered.
        case found(AnyEntry)
        /// Not here: the walk goes on through these links and the parent; the generation
        /// tells whether a memo record of the walk's result would still be current.
        case elsewhere([WeakContainer], UInt64)
    }

    /// The cache slot a memo record of `entry` points to for lookups starting here: the
    /// owner's slot for singletons, this container's own slot for `perContainer` (and whether
    /// it was made just now). Call with the lock held.
    private func memoSlot(of entry: AnyEntry, in state: inout State) -> (slot: AnySlot?, isNew: Bool) {
        switch entry.lifetime {
        case .singleton, .weakSingleton, .eagerSingleton: (entry.ownerSlot, false)
        case .perContainer: perContainerSlot(for: entry, in: &state)
        case .unique, .graph: (nil, false)
        }
    }

    /// The memoized entry for `key` in the snapshot. Call inside a `Reclamation` read.
    private func memoSnapshotEntry(_ key: Key) -> AnyEntry? {
        assert(Reclamation.isReading, "ScopeGraph: the memo read outside a protected read")
        let bits = memo.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return nil }
        // Invariant: `memo` holds a retained snapshot, released only after
        // `Reclamation.synchronize()`, which waits for this read.
        let snapshot = Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
        return snapshot.find(key)?.entry.takeUnretainedValue()
    }

    /// Opens the cached-read probe of `Container.resolve` and `Resolver.resolve` for the
    /// untagged, argument-free key of `type`: the memo record for it in lookups starting here
    /// (the registration, and the slot of a cached one), inside a protected read that the
    /// caller closes with `CachedRead.end()` or `endTakingEntry()`. `nil` (the general path
    /// runs, with a lookup of its own) when there is no memo record yet, a scope is active in
    /// this task, or this container is shut down. A scope of another task changes nothing
    /// here: a scope applies to the requests of its own task (`ScopeActivity.current`, the
    /// scope the general path would use, is read only while some scope may be active).
    @usableFromInline
    func beginCachedRead(ofType type: Any.Type) -> CachedRead? {
        guard ScopeActivity.current == nil, !isShutDown else { return nil }
        // A transparent container's lookups are its parent's, except for its own
        // `perContainer` instances: those are read through the general path. Walked without
        // reference counting (see `parentReference`); measured in Docs/Performance.md.
        var owner = Unmanaged.passUnretained(self)
        var isStart = true
        while let parent = owner._withUnsafeGuaranteedRef({ container in
            container.isTransparent.load(ordering: .sequentiallyConsistent) ? container.parentReference : nil
        }) {
            owner = parent
            isStart = false
        }
        let thread = ThreadState.currentUnmanaged
        let found = owner._withUnsafeGuaranteedRef { owner -> MemoSnapshot.ProbeResult? in
            guard owner.memo.load(ordering: .relaxed) != 0 else { return nil }
            thread._withUnsafeGuaranteedRef { Reclamation.begin($0) }
            let bits = owner.memo.load(ordering: .sequentiallyConsistent)
            guard bits != 0 else { return nil }
            // Invariant: see `memoSnapshotEntry`.
            return Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef {
                $0.probe(ofType: ObjectIdentifier(type), perContainerToo: isStart)
            }
        }
        guard let found else {
            thread._withUnsafeGuaranteedRef { if $0.announced.load(ordering: .relaxed) != 0 { Reclamation.end($0) } }
            return nil
        }
        // The fast path's registrations: `unique` or `graph`, a plain synchronous factory (the
        // key has no arguments), no blocks, and the key's type its own (so the entry is
        // `Entry<T>`).
        let isFast =
            found.slot == nil && found.ownType && FastConstruction.isEnabled
            && found.entry._withUnsafeGuaranteedRef { entry in
                (entry.lifetime == .unique || entry.lifetime == .graph) && entry.kind == .sync
                    && !entry.hasOnResolvedBlocks
            }
        return CachedRead(thread: thread, entry: found.entry, slot: found.slot, isFast: isFast)
    }
}

extension AnyEntry {
    /// Records a lookup this entry answered from its own container; true when one was recorded
    /// before (the key is then worth memoizing: `Container.localAnswer`).
    func noteLookedUp() -> Bool {
        lookedUp.exchange(true, ordering: .relaxed)
    }
}

/// A protected read opened by `Container.beginCachedRead`: `entry` and `slot` (unretained)
/// stay valid until the read ends, with `end()` or `endTakingEntry()`, exactly once.
@usableFromInline
struct CachedRead {
    /// The current thread's state, unretained: the thread-local keeps it alive. The fast path
    /// takes it from here instead of looking the thread-local up again.
    @usableFromInline let thread: Unmanaged<ThreadState>
    /// The registration answering the key, memoized. Unretained: the memo snapshot holds it,
    /// and the snapshot is not released before the read ends (`Reclamation`).
    let entry: Unmanaged<AnyEntry>
    /// The registration's cache slot, for a cached lifetime whose own type was asked for;
    /// unretained, as `entry`.
    @usableFromInline let slot: Unmanaged<AnySlot>?
    /// The registration may be constructed (or, for `graph`, read) on the fast path
    /// (`FastConstruction`).
    @usableFromInline let isFast: Bool

    /// The instance published in `slot`, if there is one. Call before the read ends.
    @inlinable
    func published<T>(as type: T.Type) -> T? {
        guard let slot else { return nil }
        return slot._withUnsafeGuaranteedRef { slot in
            // Invariant: the memo gives a slot only for a key of `T` itself
            // (`MemoSnapshot.Bucket.ownType`), and `Entry<T>` makes `Slot<T>`s.
            assert(slot is Slot<T>, "ScopeGraph: the memo gave a \(Swift.type(of: slot)) for \(T.self)")
            return unsafeDowncast(slot, to: Slot<T>.self).readPublished()
        }
    }

    /// The registration, for the fast path (`FastConstruction`), closing the read; `nil` (the
    /// read still open) when it is not a fast path's registration.
    @inlinable
    func fastEntry<T>(as type: T.Type) -> Entry<T>? {
        guard isFast else { return nil }
        let entry = endTakingEntry().entry
        // Invariant: `isFast` holds only for a bucket of `T`'s own simple key
        // (`MemoSnapshot.Bucket.ownType`), and `Entry<T>` is the registration of `T`.
        assert(entry is Entry<T>, "ScopeGraph: the memo gave a \(Swift.type(of: entry)) for \(T.self)")
        return unsafeDowncast(entry, to: Entry<T>.self)
    }

    /// Closes the protected read.
    @usableFromInline
    func end() { thread._withUnsafeGuaranteedRef { Reclamation.end($0) } }

    /// Closes the protected read and returns the memoized registration, retained while the
    /// read still protected it: the general path then resolves with it instead of looking the
    /// key up again.
    @usableFromInline
    func endTakingEntry() -> MemoizedEntry {
        let memoized = MemoizedEntry(entry: entry.takeUnretainedValue())
        end()
        return memoized
    }
}

/// The registration the cached-read probe found memoized, handed to the general path.
@usableFromInline
struct MemoizedEntry {
    @usableFromInline let entry: AnyEntry

    @usableFromInline
    init(entry: AnyEntry) { self.entry = entry }
}

extension Container {
    /// Moves the pending lookups into the snapshot once they are as many as the records
    /// already there (at least 16), so rebuilding costs amortized constant time per lookup.
    /// Call with the lock held; returns the old snapshot, to release after unlocking.
    private func rebuildMemoIfDue(_ state: inout State) -> MemoSnapshot? {
        state.pendingLookups.count >= max(16, state.memoCount) ? rebuildMemo(&state) : nil
    }

    /// Replaces the snapshot with one holding its records and the pending ones. Call with the
    /// lock held; returns the old snapshot, to release after unlocking.
    private func rebuildMemo(_ state: inout State) -> MemoSnapshot? {
        let bits = memo.load(ordering: .sequentiallyConsistent)
        let old = bits == 0 ? nil : Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
        let snapshot = MemoSnapshot(extending: old?.takeUnretainedValue(), with: state.pendingLookups)
        state.pendingLookups = [:]
        state.memoCount = snapshot.count
        return swapMemo(Int(bitPattern: Unmanaged.passRetained(snapshot).toOpaque()))
    }

    /// Publishes a new snapshot (bits of a retained one, 0 for none) and returns the old one
    /// once no reader can still use it. Call with the lock held; release the result after
    /// unlocking.
    func swapMemo(_ bits: Int) -> MemoSnapshot? {
        let old = memo.exchange(bits, ordering: .sequentiallyConsistent)
        guard old != 0 else { return nil }
        Reclamation.synchronize()
        return Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
    }
}
