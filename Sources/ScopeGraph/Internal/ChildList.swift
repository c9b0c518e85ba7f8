/// A container's children, held weakly, in creation order.
///
/// A child adds itself when it is made and removes itself when it is freed. A request-scope
/// parent has a few children alive at a time, kept in a small array; a parent with many
/// children alive (a server with thousands of requests in flight) switches to a dictionary, so
/// that freeing a child costs the same however many others are alive, in whatever order they
/// go. Creation order is kept by a sequence number.
struct ChildList {
    private var few: [WeakContainer] = []
    private var many: [ObjectIdentifier: (sequence: Int, child: WeakContainer)]?
    private var nextSequence = 0
    private static let fewLimit = 32

    // Closures, not key paths, in this file: a key path literal costs a runtime call per use.
    var isEmpty: Bool { if let many { many.isEmpty } else { few.isEmpty } }

    /// The live children, in creation order.
    var live: [Container] {
        guard let many else { return few.compactMap { $0.value } }
        return many.values.sorted { $0.sequence < $1.sequence }.compactMap { $0.child.value }
    }

    /// The live children in no particular order (for invalidation, which visits them all).
    var liveInAnyOrder: [Container] {
        guard let many else { return few.compactMap { $0.value } }
        return many.values.compactMap { $0.child.value }
    }

    mutating func add(_ child: Container) {
        if many != nil {
            many![ObjectIdentifier(child)] = (nextSequence, WeakContainer(child))
            nextSequence += 1
        } else if few.count < Self.fewLimit {
            // Made in place: a weak reference copied and dropped costs two side-table updates.
            few.append(WeakContainer(child))
        } else {
            let link = WeakContainer(child)
            var table: [ObjectIdentifier: (sequence: Int, child: WeakContainer)] = [:]
            table.reserveCapacity(Self.fewLimit * 2)
            for existing in few {
                table[existing.id] = (nextSequence, existing)
                nextSequence += 1
            }
            table[link.id] = (nextSequence, link)
            nextSequence += 1
            many = table
            few = []
        }
    }

    /// Forgets the child `id` (a freed child calls this from its `deinit`).
    mutating func remove(_ id: ObjectIdentifier) {
        if many != nil {
            many!.removeValue(forKey: id)
        } else if let index = few.lastIndex(where: { $0.id == id }) {
            few.remove(at: index)
        }
    }
}
