/// A container's `perContainer` slots, by the serial of their registration (`Container.State`).
///
/// A request scope usually holds one or a few, so they are kept in one array and searched
/// linearly; past `indexThreshold` a dictionary indexes them, so that a container holding
/// many stays fast. A dictionary for every container cost a request scope (benchmark K) about
/// 1,100 instructions: its allocation, hashing and growth.
struct PerContainerSlots {
    private var items: [(serial: UInt64, slot: AnySlot)] = []
    private var index: [UInt64: Int] = [:]
    static var indexThreshold: Int { 16 }

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }

    /// Every slot, in the order they were added.
    var values: [AnySlot] { items.map(\.slot) }

    /// The slot of the registration with this serial, if there is one.
    subscript(serial: UInt64) -> AnySlot? {
        position(of: serial).map { items[$0].slot }
    }

    /// Adds the slot of a registration that has none here yet.
    mutating func add(_ slot: AnySlot, for serial: UInt64) {
        assert(position(of: serial) == nil, "ScopeGraph: a second perContainer slot for one registration")
        items.append((serial, slot))
        if items.count > Self.indexThreshold {
            if index.isEmpty { reindex() } else { index[serial] = items.count - 1 }
        }
    }

    /// Removes the slot of the registration with this serial and returns it, if there is one.
    mutating func remove(serial: UInt64) -> AnySlot? {
        guard let position = position(of: serial) else { return nil }
        let slot = items.remove(at: position).slot
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
        return items.firstIndex { $0.serial == serial }
    }

    private mutating func reindex() {
        index.removeAll(keepingCapacity: true)
        guard items.count > Self.indexThreshold else { return }
        for (offset, item) in items.enumerated() { index[item.serial] = offset }
    }
}
