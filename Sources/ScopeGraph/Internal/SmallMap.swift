/// A map for the few entries a resolve or a container usually holds: the `graph` instances of
/// one resolve, the `perContainer` slots of one container.
///
/// The entries live in one array searched linearly from the most recent (no hashing, one
/// allocation); past `indexThreshold` entries a dictionary indexes them, so a large map stays
/// fast. Removing keeps the order of the others.
struct SmallMap<Key: Hashable, Value> {
    private struct Item {
        let key: Key
        var value: Value
    }

    private var items: [Item] = []
    private var index: [Key: Int] = [:]
    private var indexThreshold: Int { 16 }

    var isEmpty: Bool { items.isEmpty }

    /// Every value, in the order the keys were added.
    var allValues: [Value] { items.map(\.value) }

    /// Where the value of `key` is, if there is one.
    func position(of key: Key) -> Int? {
        if items.count > indexThreshold { return index[key] }
        var position = items.count - 1
        while position >= 0 {
            if items[position].key == key { return position }
            position -= 1
        }
        return nil
    }

    /// The value at `position` (from `position(of:)`).
    func value(at position: Int) -> Value { items[position].value }

    subscript(key: Key) -> Value? { position(of: key).map { items[$0].value } }

    /// Sets the value of `key`, replacing an earlier one.
    mutating func set(_ value: Value, for key: Key) {
        if let existing = position(of: key) {
            items[existing].value = value
            return
        }
        items.append(Item(key: key, value: value))
        if items.count > indexThreshold {
            if index.isEmpty { reindex() } else { index[key] = items.count - 1 }
        }
    }

    /// Removes the value of `key` and returns it, if there is one.
    mutating func remove(_ key: Key) -> Value? {
        guard let position = position(of: key) else { return nil }
        let value = items.remove(at: position).value
        if !index.isEmpty { reindex() }
        return value
    }

    /// Removes everything, keeping the array's storage for reuse.
    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        if !index.isEmpty { index.removeAll() }
    }

    private mutating func reindex() {
        index.removeAll(keepingCapacity: true)
        guard items.count > indexThreshold else { return }
        for (position, item) in items.enumerated() { index[item.key] = position }
    }
}
