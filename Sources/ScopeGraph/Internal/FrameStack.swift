/// The frames of the constructions in progress in one resolve, innermost last.
///
/// A buffer managed by hand rather than an `Array`: every construction pushes and pops a
/// frame, and an array stored in a class would check its uniqueness (and may copy) on each.
/// Non-copyable, so the buffer has one owner, the resolve's context.
struct FrameStack: ~Copyable {
    private var base: UnsafeMutablePointer<ResolutionContext.Frame>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 8
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The innermost frame.
    var last: ResolutionContext.Frame? { count == 0 ? nil : base[count - 1] }

    /// The keys of the frames, outermost first (for errors).
    var keys: [Key] { (0..<count).map { base[$0].key } }

    @inline(__always)
    mutating func push(_ frame: ResolutionContext.Frame) {
        if count == capacity { grow() }
        (base + count).initialize(to: frame)
        count += 1
    }

    @inline(__always)
    mutating func pop() {
        count -= 1
        (base + count).deinitialize(count: 1)
    }

    mutating func removeAll() {
        base.deinitialize(count: count)
        count = 0
    }

    /// True when a frame builds `identity`.
    func contains(_ identity: ResolutionContext.Identity) -> Bool {
        var position = 0
        while position < count {
            if base[position].identity == identity { return true }
            position += 1
        }
        return false
    }

    /// True when the frames from position `start` on all build new `unique` instances (a
    /// construction from a record is one).
    func onlyUniqueConstructions(from start: Int) -> Bool {
        var position = start
        while position < count {
            if let entry = base[position].entry, entry.lifetime != .unique { return false }
            position += 1
        }
        return true
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<ResolutionContext.Frame>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
