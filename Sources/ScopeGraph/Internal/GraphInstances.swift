/// The `graph` instances one resolve holds, by identity (entry and starting container), each
/// in a `StrongBox<T>` of its entry's type, so that sharing one needs no dynamic cast.
///
/// A resolve usually holds a handful, so they live in an array searched from the end (the
/// most recent is the likeliest to be shared next) with no hashing; past `indexThreshold`
/// instances a dictionary indexes them, so a very large graph stays linear overall.
struct GraphInstances {
    // Two parallel arrays, not one of tuples: searching then reads plain identities.
    private var identities: [ResolutionContext.Identity] = []
    private var boxes: [AnyObject] = []
    private var index: [ResolutionContext.Identity: Int] = [:]
    private static let indexThreshold = 16

    var isEmpty: Bool { identities.isEmpty }

    /// The position of the instance of `identity`, if this resolve holds one.
    func position(of identity: ResolutionContext.Identity) -> Int? {
        if identities.isEmpty { return nil }
        if identities.count > Self.indexThreshold { return index[identity] }
        var position = identities.count - 1
        while position >= 0 {
            if identities[position] == identity { return position }
            position -= 1
        }
        return nil
    }

    /// The boxed instance at `position` (from `position(of:)`).
    func box(at position: Int) -> AnyObject { boxes[position] }

    /// Records the boxed instance of `identity`, replacing an earlier one.
    mutating func store(_ box: AnyObject, for identity: ResolutionContext.Identity) {
        if let existing = position(of: identity) {
            boxes[existing] = box
            return
        }
        identities.append(identity)
        boxes.append(box)
        if identities.count > Self.indexThreshold {
            if index.isEmpty {
                for (position, identity) in identities.enumerated() { index[identity] = position }
            } else {
                index[identity] = identities.count - 1
            }
        }
    }

    /// Forgets every instance, keeping the storage for the next resolve.
    mutating func removeAll() {
        identities.removeAll(keepingCapacity: true)
        boxes.removeAll(keepingCapacity: true)
        if !index.isEmpty { index.removeAll() }
    }
}
