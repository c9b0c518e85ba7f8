extension Container {
    /// Finds the entry answering `key` for a lookup starting here: own registrations (after any
    /// overrides of the active scope), then collaborators in link order, then the parent; each
    /// container visited once. Walks without overrides are memoized per starting container.
    func lookup(_ key: Key, scope: ResolutionScope?) -> AnyEntry? {
        if let scope, scope.hasOverrides { return walk(key, scope: scope) }
        let (memo, generation) = state.withLock { ($0.lookups[key], $0.generation) }
        if let memo { return memo }
        guard let found = walk(key, scope: nil) else { return nil }
        state.withLock { state in if state.generation == generation { state.lookups[key] = found } }
        return found
    }

    /// The memoized answer for `key`, without walking. The fast path of `resolve`.
    @inline(__always)
    func memoizedLookup(_ key: Key) -> AnyEntry? { state.withLock { $0.lookups[key] } }

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
            state.registrations.sorted { $0.value.sequence < $1.value.sequence }.map { (key: $0.key, entry: $0.value.entry) }
        }
        return (scope?.overrides(in: self) ?? []) + own
    }

    /// This container and its live descendants, depth first, children in creation order.
    func subtree() -> [Container] {
        [self] + children.flatMap { $0.subtree() }
    }
}
