/// A container's children, held weakly, in creation order. A child removes itself when it is
/// freed, by its serial number (never reused, unlike an address).
///
/// The links are sorted by serial, which is creation order. Removing the newest child (a
/// request scope, usually) pops it; any other is found by binary search and left as a
/// tombstone, and the tombstones are compacted away once they are half the list. So freeing
/// children in any order costs amortized logarithmic time each, not a shift of the list: a
/// parent freeing tens of thousands of children oldest first spent minutes in `remove`.
struct ChildList {
    private struct Link {
        let child: WeakContainer
        var isRemoved = false
    }

    private var links: [Link] = []
    private var removedCount = 0

    var isEmpty: Bool { links.count == removedCount }

    /// The live children, in creation order.
    var live: [Container] { links.compactMap { $0.isRemoved ? nil : $0.child.value } }

    mutating func add(_ child: Container) {
        let link = Link(child: WeakContainer(child))
        // Serials are taken before the parent's lock: two children made at once may arrive
        // in either order.
        guard let last = links.last, last.child.serial > child.serial else { return links.append(link) }
        links.insert(link, at: firstIndex(notBelow: child.serial))
    }

    mutating func remove(serial: UInt64) {
        if links.last?.child.serial == serial {
            links.removeLast()
            while links.last?.isRemoved == true {
                links.removeLast()
                removedCount -= 1
            }
            return
        }
        let index = firstIndex(notBelow: serial)
        guard index < links.count, links[index].child.serial == serial, !links[index].isRemoved else { return }
        links[index].isRemoved = true
        removedCount += 1
        if removedCount * 2 > links.count {
            links.removeAll { $0.isRemoved }
            removedCount = 0
        }
    }

    /// The index of the first link whose serial is `serial` or more (binary search).
    private func firstIndex(notBelow serial: UInt64) -> Int {
        var low = 0
        var high = links.count
        while low < high {
            let middle = (low + high) / 2
            if links[middle].child.serial < serial { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A weak reference to a container, with its serial number kept for removal after it is gone.
struct WeakContainer: @unchecked Sendable {
    // @unchecked: the weak reference is written once, in init; weak loads are thread-safe.
    weak var value: Container?
    let serial: UInt64

    init(_ container: Container) {
        value = container
        serial = container.serial
    }
}

extension [WeakContainer] {
    /// Drops the links to containers that are gone and returns the live ones, strongly. Call
    /// with a container's lock held, and let go of the result after unlocking: checking a link
    /// takes a strong reference for a moment, and if the container's other references go at
    /// that moment, releasing it there would run the container's `deinit` under the lock.
    mutating func removeGone() -> [Container] {
        var live: [Container] = []
        removeAll { link in
            guard let container = link.value else { return true }
            live.append(container)
            return false
        }
        return live
    }

    /// `removeGone`, keeping one link per container (by serial). Repeats are looked for among
    /// the live links only, by a linear search while there are few of them (a `Set` built per
    /// call cost about 700 instructions per link, most of a `perContainer` request's holder
    /// bookkeeping, where one or two holders are live).
    mutating func removeGoneAndRepeated() -> [Container] {
        var seen: Set<UInt64> = []
        var live: [Container] = []
        removeAll { link in
            guard let container = link.value else { return true }
            let serial = link.serial
            if live.count < Self.linearSearchLimit {
                if live.contains(where: { $0.serial == serial }) { return true }
            } else {
                if seen.isEmpty { seen = Set(live.lazy.map(\.serial)) }
                guard seen.insert(serial).inserted else { return true }
            }
            live.append(container)
            return false
        }
        return live
    }

    /// Up to how many live links `removeGoneAndRepeated` finds repeats without a `Set`.
    static var linearSearchLimit: Int { 16 }
}
