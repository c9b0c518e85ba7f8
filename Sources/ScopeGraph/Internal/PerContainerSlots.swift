/// A container's `perContainer` cache slots, by entry.
///
/// A container usually caches a few, and a request-scope child is created and dropped per
/// request, so they live in one small array searched linearly (no hashing, one allocation);
/// past `indexThreshold` slots a dictionary indexes them.
struct PerContainerSlots {
    private struct Item {
        let entry: ObjectIdentifier
        let slot: AnySlot
    }

    private var items: [Item] = []
    private var index: [ObjectIdentifier: Int] = [:]
    private static let indexThreshold = 16

    var isEmpty: Bool { items.isEmpty }

    /// Every slot, in the order they were created.
    var all: [AnySlot] { items.map(\.slot) }

    /// The slot of the entry `id`, if one was created.
    subscript(id: ObjectIdentifier) -> AnySlot? {
        position(of: id).map { items[$0].slot }
    }

    /// Adds the slot of the entry `id`, which has none.
    mutating func add(_ slot: AnySlot, for id: ObjectIdentifier) {
        items.append(Item(entry: id, slot: slot))
        if items.count > Self.indexThreshold {
            if index.isEmpty {
                for (position, item) in items.enumerated() { index[item.entry] = position }
            } else {
                index[id] = items.count - 1
            }
        }
    }

    /// Removes and returns the slot of the entry `id`, if there is one.
    mutating func remove(_ id: ObjectIdentifier) -> AnySlot? {
        guard let position = position(of: id) else { return nil }
        let slot = items.remove(at: position).slot
        if !index.isEmpty {
            index = [:]
            if items.count > Self.indexThreshold {
                for (position, item) in items.enumerated() { index[item.entry] = position }
            }
        }
        return slot
    }

    private func position(of id: ObjectIdentifier) -> Int? {
        if items.count > Self.indexThreshold { return index[id] }
        return items.firstIndex { $0.entry == id }
    }
}
