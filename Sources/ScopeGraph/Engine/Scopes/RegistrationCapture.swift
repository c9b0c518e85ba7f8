/// The registrations a test scope captured: plain `register` calls made on one of its
/// containers by the task that runs the scope (or its child tasks) while it is active. They
/// answer like overrides made in that scope, later ones first, and go with the scope.
package final class RegistrationCapture: RegistrationStore {
    /// The containers whose registrations are captured (kept alive by the scope).
    private let containers: [Container]
    private let state = Locked(State())

    private struct State {
        var table: [UInt64: [Key: Container.Registered]] = [:]
        /// Captured registrations replaced or removed, kept until the scope goes: the table
        /// changes under the lock, and a factory may hold the last reference to an object
        /// whose deinit registers.
        var retired: [AnyEntry] = []
    }

    init(containers: [Container]) { self.containers = containers }

    func captures(_ container: Container) -> Bool { containers.contains { $0 === container } }

    var isEmpty: Bool { containers.isEmpty }

    /// The captured registration of `key` on `container`.
    func entry(for key: Key, in container: Container) -> AnyEntry? {
        state.withLock { $0.table[container.serial]?[key]?.entry }
    }

    /// The captured registrations on `container`, in registration order.
    func entries(in container: Container) -> [(key: Key, entry: AnyEntry)] {
        state.withLock { state in
            (state.table[container.serial] ?? [:]).inRegistrationOrder()
        }
    }

    /// Records `entry` under `key` (its own key, or one it forwards through `implements`) on
    /// its owner; a later registration of the key replaces it.
    package func store(_ entry: AnyEntry, under key: Key) {
        guard let container = entry.owner else { return }
        let registered = Container.Registered(entry: entry, sequence: Container.nextSequence())
        state.withLock { state in
            if let old = state.table[container.serial, default: [:]].updateValue(registered, forKey: key)?.entry,
                old !== entry
            {
                state.retired.append(old)
            }
        }
    }

    /// Removes `entry` under every key it answers for; false when it was not captured here.
    func remove(_ entry: AnyEntry) -> Bool {
        guard let container = entry.owner else { return false }
        return state.withLock { state in
            var found = false
            for key in [entry.key] + entry.forwards where state.table[container.serial]?[key]?.entry === entry {
                state.table[container.serial]?[key] = nil
                found = true
            }
            if found { state.retired.append(entry) }
            return found
        }
    }
}

extension ResolutionScope {
    /// The innermost scope bound to the current task that captures registrations on
    /// `container`, if any.
    static func capturing(_ container: Container) -> RegistrationCapture? {
        var scope = ScopeActivity.current
        while let current = scope {
            if let capture = current.capture, capture.captures(container) { return capture }
            scope = current.parent
        }
        return nil
    }
}
