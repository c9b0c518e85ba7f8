/// A map for the few entries a resolve usually holds: its `graph` instances.
///
/// Keys and values live in two arrays, in the order the keys were added, and are searched
/// linearly from the most recent (no hashing); past `indexThreshold` entries a dictionary
/// indexes them, so a large map stays fast. Removing keeps the order of the others; clearing
/// keeps the arrays' storage, so a context reused by its thread allocates nothing for its next
/// resolve. A class, so that a lookup reads the keys where they are: a struct stored in the
/// context would be copied out of it (and every value retained) at each call.
final class SmallMap<Key: Hashable, Value> {
    // Unchecked exclusivity: a map belongs to one resolve, used by one thread at a time, and
    // no method here overlaps two accesses to one field; the dynamic checks would cost on
    // every `graph` lookup. ThreadSanitizer checks the confinement in CI.
    @exclusivity(unchecked) private var keys: [Key] = []
    @exclusivity(unchecked) private var values: [Value] = []
    @exclusivity(unchecked) private var index = [Key: Int]()
    private var indexThreshold: Int { 16 }

    var isEmpty: Bool { keys.isEmpty }

    /// Every value, in the order the keys were added.
    var allValues: [Value] { values }

    /// Where the value of `key` is, if there is one.
    func position(of key: Key) -> Int? {
        if keys.count > indexThreshold { return index[key] }
        var position = keys.count - 1
        while position >= 0 {
            if keys[position] == key { return position }
            position -= 1
        }
        return nil
    }

    /// The position of the oldest item whose key satisfies `predicate` (a linear scan).
    func firstPosition(where predicate: (Key) -> Bool) -> Int? {
        keys.firstIndex(where: predicate)
    }

    /// The value at `position` (from `position(of:)`).
    func value(at position: Int) -> Value { values[position] }

    /// The key at `position` (from `position(of:)` or `firstPosition(where:)`).
    func key(at position: Int) -> Key { keys[position] }

    subscript(key: Key) -> Value? { position(of: key).map { values[$0] } }

    /// Sets the value of `key`, replacing an earlier one.
    func set(_ value: Value, for key: Key) {
        if let existing = position(of: key) {
            values[existing] = value
            return
        }
        keys.append(key)
        values.append(value)
        if keys.count > indexThreshold {
            if index.isEmpty { reindex() } else { index[key] = keys.count - 1 }
        }
    }

    /// Removes the value of `key` and returns it, if there is one.
    func remove(_ key: Key) -> Value? {
        guard let position = position(of: key) else { return nil }
        keys.remove(at: position)
        let value = values.remove(at: position)
        if !index.isEmpty { reindex() }
        return value
    }

    /// Removes everything, keeping the arrays' storage for reuse.
    func removeAll() {
        if !keys.isEmpty {
            keys.removeAll(keepingCapacity: true)
            values.removeAll(keepingCapacity: true)
        }
        if !index.isEmpty { index.removeAll() }
    }

    private func reindex() {
        index.removeAll(keepingCapacity: true)
        guard keys.count > indexThreshold else { return }
        for (offset, key) in keys.enumerated() { index[key] = offset }
    }
}
