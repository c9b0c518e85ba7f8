import Synchronization

extension Container {
    /// Finds the entry answering `key` for a lookup starting here: own registrations (after any
    /// overrides of the active scope), then collaborators in link order, then the parent; each
    /// container visited once. Walks without overrides are memoized per starting container.
    ///
    /// A key this container answers itself is memoized from its second lookup on: the first
    /// costs one lock and one hash, so a container whose registrations are each resolved once
    /// (built, used, dropped) pays no memo work at all.
    func lookup(_ key: Key, scope: ResolutionScope?) -> AnyEntry? {
        if let scope, scope.hasOverrides { return walk(key, scope: scope) }
        if let parent = parentReference, isTransparent.load(ordering: .sequentiallyConsistent) {
            // Unretained: this container keeps its parent alive.
            return parent._withUnsafeGuaranteedRef { $0.lookup(key, scope: scope) }
        }
        if memo.load(ordering: .sequentiallyConsistent) != 0,
            let entry = Reclamation.read(ThreadState.current, { memoSnapshotEntry(key) })
        {
            return entry
        }
        switch localAnswer(key) {
        case .found(let entry):
            return entry
        case .plain:
            preconditionFailure("a lookup without plainAllowed got a record")
        case .elsewhere(let collaborators, let generation):
            // This container was visited under the lock: the walk goes on from its links.
            var visited = [ObjectIdentifier(self)]
            guard let found = visitBeyond(collaborators, key, scope: nil, visited: &visited) else { return nil }
            _ = withState { state -> MemoSnapshot? in
                guard state.generation == generation else { return nil }
                state.pendingLookups[key] = MemoRecord(entry: found, slot: Self.memoSlot(of: found, in: &state))
                return rebuildMemoIfDue(&state)
            }
            return found
        }
    }

    /// What this container alone answers for `key`: a pending lookup or its own registration,
    /// under one lock (and bookkeeping for the memo), or where the walk goes on.
    ///
    /// With `plainAllowed`, the first lookup of a registration still stored as a record
    /// answers `plain`, its factory (for the inlined path to build from); any other lookup of a
    /// record makes it an entry first.
    private func localAnswer(_ key: Key, plainAllowed: Bool = false) -> LocalAnswer {
        // A replaced snapshot is released when the statement ends, after the lock.
        let (answer, _) = withState { state -> (LocalAnswer, MemoSnapshot?) in
            if !state.pendingLookups.isEmpty, let record = state.pendingLookups[key] {
                // Asked again: move the pending lookups into the lock-free snapshot.
                return (.found(record.entry), rebuildMemo(&state))
            }
            guard let index = state.registrations.index(forKey: key) else {
                return (.elsewhere(state.collaborators, state.generation), nil)
            }
            let found = state.registrations.values[index]
            if found.entry == nil, plainAllowed, !found.lookedUp {
                state.registrations.values[index].lookedUp = true
                return (.plain(found.plainFactory, identity: found.plainIdentity), nil)
            }
            let own = found.entry ?? materialize(at: index, in: &state)
            guard own.noteLookedUp() else { return (.found(own), nil) }
            state.pendingLookups[key] = MemoRecord(entry: own, slot: Self.memoSlot(of: own, in: &state))
            return (.found(own), rebuildMemoIfDue(&state))
        }
        return answer
    }

    /// The cache slot a memo record of `entry` points to for lookups starting here: the
    /// owner's slot for singletons, this container's own slot for `perContainer`. Call with
    /// the lock held.
    private static func memoSlot(of entry: AnyEntry, in state: inout State) -> AnySlot? {
        switch entry.lifetime {
        case .singleton, .weakSingleton, .eagerSingleton: entry.ownerSlot
        case .perContainer: perContainerSlot(for: entry, in: &state).slot
        case .unique, .graph: nil
        }
    }

    /// What a lookup learned from this container alone, under its lock.
    private enum LocalAnswer {
        /// A pending lookup or an own registration answered.
        case found(AnyEntry)
        /// An own registration still stored as a record answered its first lookup: its
        /// factory and identity (see PlainRegistration.swift).
        case plain(PlainFactory, identity: UInt)
        /// Not here: the walk goes on through these links and the parent; the generation
        /// tells whether a memo record of the walk's result would still be current.
        case elsewhere([WeakContainer], UInt64)
    }

    /// The container whose memo answers lookups starting here: the nearest one, from here up,
    /// that is not transparent (a transparent container's lookups are its parent's).
    /// Unretained and without touching reference counts: this container keeps its ancestors
    /// alive.
    @inline(__always)
    private func memoOwner() -> (container: Unmanaged<Container>, isSelf: Bool) {
        var current = Unmanaged.passUnretained(self)
        var isSelf = true
        while let parent = current._withUnsafeGuaranteedRef({ container -> Unmanaged<Container>? in
            container.isTransparent.load(ordering: .sequentiallyConsistent) ? container.parentReference : nil
        }) {
            current = parent
            isSelf = false
        }
        return (current, isSelf)
    }

    /// The memoized entry for `key` in the snapshot, retained. Call inside `Reclamation.read`.
    @inline(__always)
    private func memoSnapshotEntry(_ key: Key) -> AnyEntry? {
        let bits = memo.load(ordering: .sequentiallyConsistent)
        guard bits != 0 else { return nil }
        return Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef {
            $0.find(key)?.entry.takeUnretainedValue()
        }
    }

    /// Decides, with one probe of the memo, how the inlined resolve path answers the
    /// untagged, argument-free key of `type` (nothing here when a scope may be active; the
    /// tagged variant below decides the same way):
    /// - `cached`: the cache slot of the registration of the type's own type, so a
    ///   `Slot<type>` (for a `perContainer` registration found in an ancestor's memo, this
    ///   container's own slot, when it has one). A protected read is open: the caller reads
    ///   the slot, then calls `end()` exactly once. A published instance is complete, so this
    ///   holds inside a resolve in progress too.
    /// - `construct`: a memoized `unique` or `graph` registration of the type's own type; the
    ///   construction has started (see `UncachedConstruction`).
    /// - `shared`: the resolve in progress already holds this `graph` instance.
    /// - `general`: anything else.
    /// A key not memoized yet (its first lookups) is looked up in the registrations of the
    /// container whose memo answers, under its lock; the inlined path builds a `unique` or
    /// `graph` registration found there, and leaves anything else to the general path.
    @usableFromInline
    func beginFastPath(ofType type: Any.Type) -> FastPath {
        guard !ScopeActivity.mayBeActive else { return .general }
        let thread = ThreadState.currentUnmanaged
        let (owner, isSelf) = memoOwner()
        guard Self.hasSnapshot(owner) else { return firstLookupFastPath(Key(type, tag: nil), in: owner, on: thread) }
        thread._withUnsafeGuaranteedRef { Reclamation.begin($0) }
        let match = Self.snapshotMatch(owner) { $0.findSimple(ofType: ObjectIdentifier(type), perContainerToo: isSelf) }
        return fastPath(match, owner: owner, on: thread) { Key(type, tag: nil) }
    }

    /// `beginFastPath(ofType:)` for the key of `type` and `tag` (without arguments): a tagged
    /// key read as often as an untagged one costs a hash of the tag's name more.
    @usableFromInline
    func beginFastPath(ofType type: Any.Type, tag: ServiceTag) -> FastPath {
        guard !ScopeActivity.mayBeActive else { return .general }
        let tagHash = tag.nameHash
        let thread = ThreadState.currentUnmanaged
        let (owner, isSelf) = memoOwner()
        guard Self.hasSnapshot(owner) else { return firstLookupFastPath(Key(type, tag: tag), in: owner, on: thread) }
        thread._withUnsafeGuaranteedRef { Reclamation.begin($0) }
        let match = Self.snapshotMatch(owner) {
            $0.findTagged(ofType: ObjectIdentifier(type), tag: tag, tagHash: tagHash, perContainerToo: isSelf)
        }
        return fastPath(match, owner: owner, on: thread) { Key(type, tag: tag) }
    }

    /// Acts on the memo's answer, inside the protected read `beginFastPath` opened (and closes,
    /// unless the answer is a slot to read).
    @inline(__always)
    private func fastPath(
        _ match: MemoSnapshot.SimpleMatch, owner: Unmanaged<Container>, on thread: Unmanaged<ThreadState>,
        missing key: () -> Key
    ) -> FastPath {
        switch match {
        case .slot(let slot):
            return .cached(FastRead(thread: thread, slot: slot, retained: false))
        case .startingContainersSlot(let entry):
            // A transparent container (a request scope asking for its request-scoped service
            // again) reads its own `perContainer` slot. It is found by the entry's identity
            // under this container's lock, so outside the protected read: a writer may wait
            // for readers with that lock held. The entry stays retained while its identity is
            // the key (freed, its address could come back as another registration's), and the
            // slot until the read ends.
            let retained = entry.retain()
            thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
            let found = withState { $0.perContainer[ObjectIdentifier(retained.takeUnretainedValue())] }
            // No slot yet (the first resolve here): the general path builds it, from the
            // registration the memo found (looking it up again would find the same).
            guard let slot = found else { return .found(retained) }
            retained.release()
            thread._withUnsafeGuaranteedRef { Reclamation.begin($0) }
            return .cached(FastRead(thread: thread, slot: Unmanaged.passRetained(slot), retained: true))
        case .uncached(let entry):
            if let box = sharedGraphInstanceBox(entry, on: thread) {
                thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
                return .shared(box)
            }
            // Retained before the read closes: a concurrent removal may release the memo's.
            let retained = entry.retain()
            thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
            return beginUncachedConstruction(retained, on: thread)
        case .none:
            thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
            return .general
        case .missing:
            thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
            return firstLookupFastPath(key(), in: owner, on: thread)
        }
    }

    /// The inlined path for a key the memo does not hold yet: the local answer of `owner`, the
    /// container whose memo answers here (the lookup `lookup` would make first, with the same
    /// bookkeeping). A `unique` or `graph` registration of the key's own type found there is
    /// built like a memoized one; anything else, or nothing found there, goes the general way.
    @inline(never)
    private func firstLookupFastPath(
        _ key: consuming Key, in owner: Unmanaged<Container>, on thread: Unmanaged<ThreadState>
    ) -> FastPath {
        let answer = owner._withUnsafeGuaranteedRef { $0.localAnswer(key, plainAllowed: true) }
        if case .plain(let factory, let identity) = answer {
            // The key moves into the construction's frame.
            return beginPlainConstruction(factory, identity: identity, key: key, on: thread)
        }
        guard case .found(let entry) = answer, entry.valueType == key.type,
            entry.lifetime == .unique || entry.lifetime == .graph
        else { return .general }
        let retained = Unmanaged.passRetained(entry)
        if let box = sharedGraphInstanceBox(retained, on: thread) {
            retained.release()
            return .shared(box)
        }
        return beginUncachedConstruction(retained, on: thread)
    }

    /// Whether `owner` has a memo snapshot. Read before opening a protected read: a container
    /// whose keys are all still in their first lookups (no snapshot yet) has nothing to protect,
    /// and its resolves skip the announcement's full barrier.
    @inline(__always)
    private static func hasSnapshot(_ owner: Unmanaged<Container>) -> Bool {
        owner._withUnsafeGuaranteedRef { $0.memo.load(ordering: .relaxed) != 0 }
    }

    /// Runs `body` on the memo snapshot of `owner` (the container whose memo answers lookups
    /// starting here, see `memoOwner`); `.missing` without one. Call inside `Reclamation.read`.
    @inline(__always)
    private static func snapshotMatch(
        _ owner: Unmanaged<Container>, _ body: (MemoSnapshot) -> MemoSnapshot.SimpleMatch
    ) -> MemoSnapshot.SimpleMatch {
        owner._withUnsafeGuaranteedRef { owner in
            let bits = owner.memo.load(ordering: .sequentiallyConsistent)
            guard bits != 0 else { return .missing }
            return Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef(
                body)
        }
    }
}

/// How the inlined resolve path answers a request (see `Container.beginFastPath`). Trivial to
/// copy (no reference counting, no value witnesses).
@usableFromInline
enum FastPath {
    case cached(FastRead)
    case construct(UncachedConstruction)
    /// The instance, in its `StrongBox<T>`, that the resolve in progress holds (unretained:
    /// the resolve keeps it until it ends).
    case shared(Unmanaged<AnyObject>)
    /// The registration of the requested key, of the requested type, which the general path
    /// produces without looking it up again (retained: the caller releases it).
    case found(Unmanaged<AnyEntry>)
    case general
}

/// A protected read opened by `Container.beginFastPath`: the slot to read, valid until
/// `end()`.
@usableFromInline
struct FastRead {
    let thread: Unmanaged<ThreadState>
    @usableFromInline let slot: Unmanaged<AnySlot>
    /// The read holds a reference to `slot` (a container's own `perContainer` slot, which a
    /// memo does not keep), released by `end()`.
    let retained: Bool

    /// Closes the protected read.
    @usableFromInline
    func end() {
        thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
        if retained { slot.release() }
    }
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

    /// Publishes a new snapshot (bits, 0 for none) and returns the old one once no reader can
    /// still use it. Call with the lock held; release the result after unlocking.
    func swapMemo(_ bits: Int) -> MemoSnapshot? {
        let old = memo.exchange(bits, ordering: .sequentiallyConsistent)
        guard old != 0 else { return nil }
        Reclamation.synchronize()
        return Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
    }

    private func walk(_ key: Key, scope: ResolutionScope?) -> AnyEntry? {
        var visited: [ObjectIdentifier] = []
        return visit(key, scope: scope, visited: &visited)
    }

    private func visit(_ key: Key, scope: ResolutionScope?, visited: inout [ObjectIdentifier]) -> AnyEntry? {
        let id = ObjectIdentifier(self)
        if visited.contains(id) { return nil }
        visited.append(id)
        if let entry = scope?.override(for: key, in: self) { return entry }
        let (own, collaborators) = withState { state in
            (ownEntry(key, in: &state), state.collaborators)
        }
        if let own { return own }
        return visitBeyond(collaborators, key, scope: scope, visited: &visited)
    }

    /// The rest of a visit of this container, after its own registrations: its collaborators
    /// in link order, then its parent.
    private func visitBeyond(
        _ collaborators: [WeakContainer], _ key: Key, scope: ResolutionScope?, visited: inout [ObjectIdentifier]
    ) -> AnyEntry? {
        for collaborator in collaborators {
            if let found = collaborator.value?.visit(key, scope: scope, visited: &visited) { return found }
        }
        return parent?.visit(key, scope: scope, visited: &visited)
    }

    /// The containers a lookup starting here visits, in order.
    func lookupOrder() -> [Container] {
        var order: [Container] = []
        var visited: Set<ObjectIdentifier> = []
        func visit(_ container: Container) {
            guard visited.insert(ObjectIdentifier(container)).inserted else { return }
            order.append(container)
            for collaborator in container.collaborators { visit(collaborator) }
            if let parent = container.parent { visit(parent) }
        }
        visit(self)
        return order
    }

    /// This container's registrations (and the active scope's overrides on it), in
    /// registration order: overrides first, innermost scope first.
    ///
    /// Only the registrations whose key `matches` are listed. Records among them become
    /// entries (see PlainRegistration.swift), unless `recordsToo` is false: then they are left
    /// out.
    func registrationsInOrder(
        scope: ResolutionScope?, recordsToo: Bool = true, matching matches: (Key) -> Bool = { _ in true }
    ) -> [(key: Key, entry: AnyEntry)] {
        let own = withState { state in
            Self.indicesInOrder(state).compactMap { index -> (key: Key, entry: AnyEntry)? in
                let key = state.registrations.keys[index]
                guard matches(key), recordsToo || state.registrations.values[index].entry != nil else { return nil }
                return (key: key, entry: materialize(at: index, in: &state))
            }
        }
        return (scope?.overrides(in: self).filter { matches($0.key) } ?? []) + own
    }

    /// The keys of `registrationsInOrder`, records' too, without making entries of them.
    func registeredKeysInOrder(scope: ResolutionScope?) -> [Key] {
        let own = withState { state in Self.indicesInOrder(state).map { state.registrations.keys[$0] } }
        return (scope?.overrides(in: self).map(\.key) ?? []) + own
    }

    /// The positions of `state`'s registrations, in registration order.
    private static func indicesInOrder(_ state: State) -> [[Key: Registered].Index] {
        state.registrations.indices.sorted {
            state.registrations.values[$0].sequence < state.registrations.values[$1].sequence
        }
    }

    /// This container and its live descendants, depth first, children in creation order.
    func subtree() -> [Container] {
        [self] + children.flatMap { $0.subtree() }
    }
}
