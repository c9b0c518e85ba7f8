/// A container's children, held weakly, in creation order. A child removes itself when it is
/// freed, by its serial number (never reused, unlike an address).
struct ChildList {
    private var links: [(serial: UInt64, child: WeakContainer)] = []

    var isEmpty: Bool { links.isEmpty }

    /// The live children, in creation order.
    var live: [Container] { links.compactMap { $0.child.value } }

    mutating func add(_ child: Container) {
        links.append((child.serial, WeakContainer(child)))
    }

    mutating func remove(serial: UInt64) {
        // The newest child usually goes first (a request scope).
        if links.last?.serial == serial {
            links.removeLast()
        } else if let index = links.lastIndex(where: { $0.serial == serial }) {
            links.remove(at: index)
        }
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

    /// `removeGone`, keeping one link per container (by serial).
    mutating func removeGoneAndRepeated() -> [Container] {
        var seen: Set<UInt64> = []
        var live: [Container] = []
        removeAll { link in
            guard seen.insert(link.serial).inserted, let container = link.value else { return true }
            live.append(container)
            return false
        }
        return live
    }
}
