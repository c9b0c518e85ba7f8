extension Dictionary where Key == ScopeGraph.Key, Value == Container.Registered {
    /// The keys of this table and their registrations, in registration order: a key that a
    /// registration forwards (`implements`) comes right after the registration's own key,
    /// however late `implements` was called, so that `resolveAll` lists every registration
    /// where it was registered; keys of one registration in the order they were added.
    func inRegistrationOrder() -> [(key: Key, entry: AnyEntry)] {
        let placed = map { key, registered in
            // The registration's own place, when it is registered here under its own key.
            let own = self[registered.entry.key].flatMap { $0.entry === registered.entry ? $0.sequence : nil }
            return (place: own ?? registered.sequence, added: registered.sequence, key: key, entry: registered.entry)
        }
        return placed.sorted { ($0.place, $0.added) < ($1.place, $1.added) }.map { (key: $0.key, entry: $0.entry) }
    }
}
