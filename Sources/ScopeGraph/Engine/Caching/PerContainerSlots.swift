/// A container's `perContainer` slots, by the serial of their registration (`Container.State`).
///
/// A request scope usually holds one or a few. The first is kept inline, so a scope that
/// builds one handler allocates nothing here; the others go to an array searched linearly,
/// and past `indexThreshold` a dictionary indexes them, so that a container holding many stays
/// fast. A dictionary for every container cost a request scope (benchmark K) about 1,100
/// instructions: its allocation, hashing and growth.
struct PerContainerSlots {
    /// A slot, with its registration (told when the container goes: `Container.deinit`) and
    /// the registration's serial (compared without loading the registration).
    private typealias Held = (serial: UInt64, entry: AnyEntry, slot: AnySlot)
    /// The oldest slot; `nil` only when there is none (`rest` is then empty too).
    private var first: Held?
    /// The others, in the order they were added.
    private var rest: [Held] = []
    /// Positions in `rest`, once it is longer than `indexThreshold`.
    private var index: [UInt64: Int] = [:]
    static var indexThreshold: Int { 16 }

    var isEmpty: Bool { first == nil }
    var count: Int { first == nil ? 0 : 1 + rest.count }

    /// Every slot, in the order they were added.
    var values: [AnySlot] {
        guard let first else { return [] }
        return [first.slot] + rest.map(\.slot)
    }

    /// The registrations of the slots: the first apart, so that a container holding one slot
    /// (a request scope) allocates no array for it.
    var entries: (first: AnyEntry?, rest: [AnyEntry]) {
        (first?.entry, rest.isEmpty ? [] : rest.map(\.entry))
    }

    /// The slot of the registration with this serial, if there is one.
    subscript(serial: UInt64) -> AnySlot? {
        if let first, first.serial == serial { return first.slot }
        return position(of: serial).map { rest[$0].slot }
    }

    /// Adds the slot of a registration that has none here yet.
    mutating func add(_ slot: AnySlot, for entry: AnyEntry) {
        let serial = entry.serial
        assert(self[serial] == nil, "ScopeGraph: a second perContainer slot for one registration")
        guard first != nil else {
            first = (serial, entry, slot)
            return
        }
        rest.append((serial, entry, slot))
        if rest.count > Self.indexThreshold {
            if index.isEmpty { reindex() } else { index[serial] = rest.count - 1 }
        }
    }

    /// Removes the slot of the registration with this serial and returns it, if there is one.
    mutating func remove(serial: UInt64) -> AnySlot? {
        let slot: AnySlot
        if let first, first.serial == serial {
            slot = first.slot
            // The next oldest takes its place, so the order stays the order of addition.
            self.first = rest.isEmpty ? nil : rest.removeFirst()
        } else {
            guard let position = position(of: serial) else { return nil }
            slot = rest.remove(at: position).slot
        }
        if !index.isEmpty { reindex() }
        return slot
    }

    /// Removes every slot and returns them.
    mutating func removeAll() -> [AnySlot] {
        defer { self = PerContainerSlots() }
        return values
    }

    private func position(of serial: UInt64) -> Int? {
        if !index.isEmpty { return index[serial] }
        return rest.firstIndex { $0.serial == serial }
    }

    private mutating func reindex() {
        index.removeAll(keepingCapacity: true)
        guard rest.count > Self.indexThreshold else { return }
        for (offset, item) in rest.enumerated() { index[item.serial] = offset }
    }
}
