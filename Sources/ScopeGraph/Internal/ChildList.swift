/// A container's children, unretained, in creation order.
///
/// A child adds itself when it is made and removes itself, under its parent's lock, when it is
/// freed. The list holds no reference count and no weak reference: a weak reference would give
/// every child a side table (an allocation, and the slow path for each of its retains and
/// releases), which a request scope made and dropped per request would pay each time. Reading
/// the list is rare (descriptions, validation, graphs, cache invalidation), so the check that a
/// child is still alive is made there instead (`strongIfAlive`).
///
/// A request-scope parent has a few children alive at a time, kept in a small array; a parent
/// with many children alive (a server with thousands of requests in flight) switches to a
/// dictionary, so that freeing a child costs the same however many others are alive, in
/// whatever order they go. Creation order is kept by a sequence number.
///
/// Every member is used with the parent's lock held. Nothing here may release a child's last
/// reference: its `deinit` would take the same lock.
struct ChildList {
    private var few: [Unmanaged<Container>] = []
    private var many: [UnsafeMutableRawPointer: (sequence: Int, child: Unmanaged<Container>)]?
    private var nextSequence = 0
    private static let fewLimit = 32

    // Closures, not key paths, in this file: a key path literal costs a runtime call per use.
    var isEmpty: Bool { if let many { many.isEmpty } else { few.isEmpty } }

    /// The live children, in creation order.
    var live: [Container] {
        guard let many else { return few.compactMap(Self.strongIfAlive) }
        return many.values.sorted { $0.sequence < $1.sequence }.compactMap { Self.strongIfAlive($0.child) }
    }

    /// The live children in no particular order (for invalidation, which visits them all).
    var liveInAnyOrder: [Container] {
        guard let many else { return few.compactMap(Self.strongIfAlive) }
        return many.values.compactMap { Self.strongIfAlive($0.child) }
    }

    mutating func add(_ child: Container) {
        let link = Unmanaged.passUnretained(child)
        if many != nil {
            many![link.toOpaque()] = (nextSequence, link)
            nextSequence += 1
        } else if few.count < Self.fewLimit {
            few.append(link)
        } else {
            var table: [UnsafeMutableRawPointer: (sequence: Int, child: Unmanaged<Container>)] = [:]
            table.reserveCapacity(Self.fewLimit * 2)
            for existing in few {
                table[existing.toOpaque()] = (nextSequence, existing)
                nextSequence += 1
            }
            table[link.toOpaque()] = (nextSequence, link)
            nextSequence += 1
            many = table
            few = []
        }
    }

    /// Forgets the child at `address` (a freed child calls this from its `deinit`). Compares
    /// addresses only: no other child's reference count is touched.
    mutating func remove(_ address: UnsafeMutableRawPointer) {
        if many != nil {
            many!.removeValue(forKey: address)
        } else if few.last?.toOpaque() == address {
            few.removeLast()  // the newest child goes first, as a request scope does
        } else if let index = few.lastIndex(where: { $0.toOpaque() == address }) {
            few.remove(at: index)
        }
    }

    /// A strong reference to `child`, or `nil` once its `deinit` has begun (it is then waiting
    /// for its parent's lock, to remove itself from this list).
    ///
    /// Sound because the caller holds the parent's lock: until the child has removed itself,
    /// its memory stays allocated, so retaining it is allowed even while it is being
    /// deinitialized (as `self` may be retained inside a `deinit`). The retain taken first
    /// makes every release here non-final: a weak reference formed from it reads `nil` exactly
    /// when the `deinit` had begun, and otherwise gives a second reference, which the caller
    /// gets and releases after unlocking. So the child's last reference is never released
    /// under its parent's lock, whatever copies an unoptimized build adds.
    private static func strongIfAlive(_ child: Unmanaged<Container>) -> Container? {
        let held = child.retain()
        weak let probe = held.takeUnretainedValue()
        let strong = probe
        held.release()
        return strong
    }
}
