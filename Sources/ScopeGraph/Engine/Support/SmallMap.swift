/// A map for the few entries a resolve usually holds: its `graph` instances.
///
/// The first entry lives inline, so a map of one (a request scope's one request-scoped
/// service) allocates nothing; the others live in one array. Both are searched linearly from
/// the most recent (no hashing); past `indexThreshold` entries a dictionary indexes them, so a
/// large map stays fast. Removing keeps the order of the others. Position 0 is the inline
/// entry, position `n` is `rest[n - 1]`.
struct SmallMap<Key: Hashable, Value> {
    private struct Item {
        let key: Key
        var value: Value
    }

    private var head: Item?
    /// Whether `head` is set, kept apart so that checking for an empty map copies no `Item`
    /// (generic code checks an optional struct through its value witnesses).
    private var hasHead = false
    private var rest: [Item] = []
    private var index = [Key: Int]()
    private var indexThreshold: Int { 16 }

    var isEmpty: Bool { !hasHead }

    /// Every value, in the order the keys were added.
    var allValues: [Value] {
        guard let head else { return [] }
        return [head.value] + rest.map { $0.value }
    }

    /// Where the value of `key` is, if there is one.
    func position(of key: Key) -> Int? {
        guard let head else { return nil }
        if rest.count >= indexThreshold { return index[key] }
        var position = rest.count - 1
        while position >= 0 {
            if rest[position].key == key { return position + 1 }
            position -= 1
        }
        return head.key == key ? 0 : nil
    }

    /// The position of the oldest item whose key satisfies `predicate` (a linear scan).
    func firstPosition(where predicate: (Key) -> Bool) -> Int? {
        guard let head else { return nil }
        if predicate(head.key) { return 0 }
        return rest.firstIndex { predicate($0.key) }.map { $0 + 1 }
    }

    /// The value at `position` (from `position(of:)`).
    func value(at position: Int) -> Value { position == 0 ? head!.value : rest[position - 1].value }

    subscript(key: Key) -> Value? { position(of: key).map { value(at: $0) } }

    /// Sets the value of `key`, replacing an earlier one.
    mutating func set(_ value: Value, for key: Key) {
        if let existing = position(of: key) {
            if existing == 0 { head!.value = value } else { rest[existing - 1].value = value }
            return
        }
        guard hasHead else {
            head = Item(key: key, value: value)
            hasHead = true
            return
        }
        rest.append(Item(key: key, value: value))
        if rest.count >= indexThreshold {
            if index.isEmpty { reindex() } else { index[key] = rest.count }
        }
    }

    /// Removes the value of `key` and returns it, if there is one.
    mutating func remove(_ key: Key) -> Value? {
        guard let position = position(of: key) else { return nil }
        let value: Value
        if position == 0 {
            value = head!.value
            head = rest.isEmpty ? nil : rest.removeFirst()
            hasHead = head != nil
        } else {
            value = rest.remove(at: position - 1).value
        }
        if !index.isEmpty { reindex() }
        return value
    }

    /// Removes everything, keeping the array's storage for reuse.
    mutating func removeAll() {
        head = nil
        hasHead = false
        if !rest.isEmpty { rest.removeAll(keepingCapacity: true) }
        if !index.isEmpty { index.removeAll() }
    }

    private mutating func reindex() {
        index.removeAll(keepingCapacity: true)
        guard rest.count >= indexThreshold, let head else { return }
        index[head.key] = 0
        for (offset, item) in rest.enumerated() { index[item.key] = offset + 1 }
    }
}
