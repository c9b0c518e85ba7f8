extension Container {
    /// The lookup walk, without the memo: the scope's overrides and own registrations of each
    /// container, then its collaborators in link order, then its parent; each container once.
    func walk(_ key: Key, scope: ResolutionScope?) throws(ReachedShutDown) -> AnyEntry? {
        var visited: [UInt64] = []
        return try visit(key, scope: scope, visited: &visited)
    }

    private func visit(_ key: Key, scope: ResolutionScope?, visited: inout [UInt64]) throws(ReachedShutDown)
        -> AnyEntry?
    {
        if visited.contains(serial) { return nil }
        visited.append(serial)
        if isShutDown { throw ReachedShutDown(container: name) }
        if let entry = scope?.override(for: key, in: self) { return entry }
        let (own, collaborators) = withState { state in
            (state.registrations[key]?.entry, state.collaborators)
        }
        if let own { return own }
        return try visitBeyond(collaborators, key, scope: scope, visited: &visited)
    }

    /// The rest of a visit of this container, after its own registrations: its collaborators
    /// in link order, then its parent.
    func visitBeyond(
        _ collaborators: [WeakContainer], _ key: Key, scope: ResolutionScope?, visited: inout [UInt64]
    ) throws(ReachedShutDown) -> AnyEntry? {
        for collaborator in collaborators {
            if let found = try collaborator.value?.visit(key, scope: scope, visited: &visited) { return found }
        }
        return try parent?.visit(key, scope: scope, visited: &visited)
    }

    /// The containers a lookup starting here visits, in order.
    func lookupOrder() -> [Container] {
        var order: [Container] = []
        var visited: Set<UInt64> = []
        func visit(_ container: Container) {
            guard visited.insert(container.serial).inserted else { return }
            order.append(container)
            for collaborator in container.collaborators { visit(collaborator) }
            if let parent = container.parent { visit(parent) }
        }
        visit(self)
        return order
    }

    /// This container's registrations (and the active scope's overrides on it), in
    /// registration order: overrides first, innermost scope first. Only the registrations
    /// whose key `matches` are listed.
    func registrationsInOrder(
        scope: ResolutionScope?, matching matches: (Key) -> Bool = { _ in true }
    ) -> [(key: Key, entry: AnyEntry)] {
        let own = withState { state in state.registrations.inRegistrationOrder().filter { matches($0.key) } }
        return (scope?.overrides(in: self).filter { matches($0.key) } ?? []) + own
    }

    /// The keys of `registrationsInOrder`.
    func registeredKeysInOrder(scope: ResolutionScope?) -> [Key] {
        registrationsInOrder(scope: scope).map(\.key)
    }

    /// This container and its live descendants, depth first, children in creation order.
    func subtree() -> [Container] {
        [self] + children.flatMap { $0.subtree() }
    }
}

/// A lookup walk reached a container whose shutdown has begun.
struct ReachedShutDown: Error {
    let container: String
}
