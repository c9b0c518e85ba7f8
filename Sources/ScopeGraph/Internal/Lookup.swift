import Synchronization

extension Container {
    /// Finds the entry answering `key` for a lookup starting here: own registrations (after any
    /// overrides of the active scope), then collaborators in link order, then the parent; each
    /// container visited once. Walks without overrides are memoized per starting container.
    func lookup(_ key: Key, scope: ResolutionScope?) -> AnyEntry? {
        if let scope, scope.hasOverrides { return walk(key, scope: scope) }
        if let parent, isTransparent.load(ordering: .sequentiallyConsistent) { return parent.lookup(key, scope: scope) }
        if let entry = Reclamation.read(ThreadState.current, { memoSnapshotEntry(key) }) { return entry }
        // A replaced snapshot is released when the statement ends, after the lock.
        let (pending, generation, _) = state.withLock { state -> (AnyEntry?, UInt64, MemoSnapshot?) in
            guard let record = state.pendingLookups[key] else { return (nil, state.generation, nil) }
            // Asked again: move the pending lookups into the lock-free snapshot.
            return (record.entry, state.generation, rebuildMemo(&state))
        }
        if let pending { return pending }
        guard let found = walk(key, scope: nil) else { return nil }
        let slot: AnySlot? =
            switch found.lifetime {
            case .singleton, .weakSingleton, .eagerSingleton: found.ownerSlot
            case .perContainer: erasedPerContainerSlot(for: found)
            case .unique, .graph: nil
            }
        _ = state.withLock { state -> MemoSnapshot? in
            guard state.generation == generation else { return nil }
            state.pendingLookups[key] = MemoRecord(entry: found, slot: slot)
            return state.pendingLookups.count >= max(16, state.memoCount) ? rebuildMemo(&state) : nil
        }
        return found
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
    /// untagged, argument-free key of `type` (nothing here when a scope may be active):
    /// - `cached`: the memo knows the cache slot (of the registration's own type, so it is a
    ///   `Slot<type>`; for a transparent container, not a `perContainer` slot of its parent).
    ///   A protected read is open: the caller reads the slot, then calls `end()` exactly once.
    ///   A published instance is complete, so this holds inside a resolve in progress too.
    /// - `construct`: a memoized `unique` or `graph` registration of the type's own type; the
    ///   construction has started (see `UncachedConstruction`).
    /// - `shared`: the resolve in progress already holds this `graph` instance.
    /// - `general`: anything else.
    @usableFromInline
    func beginFastPath(ofType type: ObjectIdentifier) -> FastPath {
        guard !ScopeActivity.mayBeActive else { return .general }
        let thread = ThreadState.currentUnmanaged
        thread._withUnsafeGuaranteedRef { Reclamation.begin($0) }
        switch memoizedMatch(ofType: type) {
        case .slot(let slot):
            return .cached(FastRead(thread: thread, slot: slot))
        case .uncached(let entry):
            if let position = sharedGraphInstancePosition(entry, on: thread) {
                thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
                return .shared(position)
            }
            // Retained before the read closes: a concurrent removal may release the memo's.
            let retained = entry.retain()
            thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
            return beginUncachedConstruction(retained, on: thread)
        case .none:
            thread._withUnsafeGuaranteedRef { Reclamation.end($0) }
            return .general
        }
    }

    /// The memo's answer for `type`'s simple key: this container's own memo, or (for a
    /// transparent container) its parent's, where `perContainer` slots belong to the parent
    /// and are skipped. Call inside `Reclamation.read`.
    @inline(__always)
    private func memoizedMatch(ofType type: ObjectIdentifier) -> MemoSnapshot.SimpleMatch {
        let (owner, isSelf) = memoOwner()
        return owner._withUnsafeGuaranteedRef { owner in
            let bits = owner.memo.load(ordering: .sequentiallyConsistent)
            guard bits != 0 else { return .none }
            return Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef {
                $0.findSimple(ofType: type, perContainerToo: isSelf)
            }
        }
    }
}

/// How the inlined resolve path answers a request (see `Container.beginFastPath`). Trivial to
/// copy (no reference counting, no value witnesses).
@usableFromInline
enum FastPath {
    case cached(FastRead)
    case construct(UncachedConstruction)
    /// The position of the instance in the resolve's `graph` instances.
    case shared(Int)
    case general
}

/// A protected read opened by `Container.beginFastPath`: the slot to read, valid until
/// `end()`.
@usableFromInline
struct FastRead {
    let thread: Unmanaged<ThreadState>
    @usableFromInline let slot: Unmanaged<AnySlot>

    /// Closes the protected read.
    @usableFromInline
    func end() { thread._withUnsafeGuaranteedRef { Reclamation.end($0) } }
}

extension Container {

    /// Replaces the snapshot with one holding its records and the pending ones. Call with the
    /// lock held; returns the old snapshot, to release after unlocking.
    private func rebuildMemo(_ state: inout State) -> MemoSnapshot? {
        let old = memo.load(ordering: .sequentiallyConsistent)
        var records =
            old == 0
            ? [:] : Unmanaged<MemoSnapshot>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeUnretainedValue().records
        records.merge(state.pendingLookups) { _, new in new }
        state.pendingLookups = [:]
        state.memoCount = records.count
        let snapshot = MemoSnapshot(records)
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
        let (own, collaborators) = state.withLock { state in
            (state.registrations[key]?.entry, state.collaborators)
        }
        if let own { return own }
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
    func registrationsInOrder(scope: ResolutionScope?) -> [(key: Key, entry: AnyEntry)] {
        let own = state.withLock { state in
            state.registrations.sorted { $0.value.sequence < $1.value.sequence }.map {
                (key: $0.key, entry: $0.value.entry)
            }
        }
        return (scope?.overrides(in: self) ?? []) + own
    }

    /// This container and its live descendants, depth first, children in creation order.
    func subtree() -> [Container] {
        [self] + children.flatMap { $0.subtree() }
    }
}
