/// The `graph` instances one resolve holds, by identity (entry and starting container).
///
/// A resolve usually holds a handful, so they live in an array searched from the end (the
/// most recent is the likeliest to be shared next) with no hashing; past `indexThreshold`
/// instances a dictionary indexes them, so a very large graph stays linear overall.
struct GraphInstances {
    private var items: [(identity: ResolutionContext.Identity, value: Any)] = []
    private var index: [ResolutionContext.Identity: Int] = [:]
    private static let indexThreshold = 16

    var isEmpty: Bool { items.isEmpty }

    /// The position of the instance of `identity`, if this resolve holds one.
    func position(of identity: ResolutionContext.Identity) -> Int? {
        if items.isEmpty { return nil }
        if items.count > Self.indexThreshold { return index[identity] }
        var position = items.count - 1
        while position >= 0 {
            if items[position].identity == identity { return position }
            position -= 1
        }
        return nil
    }

    /// The instance at `position` (from `position(of:)`).
    func value(at position: Int) -> Any { items[position].value }

    /// Records the instance of `identity`, replacing an earlier one.
    mutating func store(_ value: Any, for identity: ResolutionContext.Identity) {
        if let existing = position(of: identity) {
            items[existing].value = value
            return
        }
        items.append((identity, value))
        if items.count > Self.indexThreshold {
            if index.isEmpty {
                for (position, item) in items.enumerated() { index[item.identity] = position }
            } else {
                index[identity] = items.count - 1
            }
        }
    }

    /// Forgets every instance, keeping the storage for the next resolve.
    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        if !index.isEmpty { index.removeAll() }
    }
}
