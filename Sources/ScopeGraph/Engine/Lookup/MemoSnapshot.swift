import Synchronization

/// What a memoized lookup remembers: the entry that answered and, for cached lifetimes, the
/// slot a resolve starting in this container reads (the owner's slot for singletons, this
/// container's slot for `perContainer`).
struct MemoRecord {
    let entry: AnyEntry
    let slot: AnySlot?
}

/// An immutable open-addressing table of memoized lookups, read without locks under
/// `Reclamation.read`. Keys without tag or arguments (the common case) compare by type
/// identity only, so probing retains nothing and hashes nothing.
final class MemoSnapshot: @unchecked Sendable {
    // @unchecked: immutable after init; the buckets are only read.
    struct Bucket {
        var type: ObjectIdentifier?
        var isSimple = false
        /// The key's type is the registration's own type (not a forwarded one).
        var ownType = false
        /// The slot is a `perContainer` slot of the container that owns this memo.
        var isPerContainer = false
        /// The key's `hash`, kept so that a larger snapshot places the bucket without hashing.
        var hash = 0
        var key: Key?
        /// Held strongly by the bucket (the buffer's `initialize` and `deinitialize` count the
        /// references), so that a reader inside a protected read may use them unretained.
        var entry: AnyEntry?
        var slot: AnySlot?
    }

    /// What `probe` found: the memoized entry and, for a cached lifetime read here, its slot.
    typealias ProbeResult = (entry: Unmanaged<AnyEntry>, slot: Unmanaged<AnySlot>?, ownType: Bool)

    let count: Int
    private let mask: Int
    private let buckets: UnsafeMutablePointer<Bucket>

    /// A snapshot holding the buckets of `old` (moved without hashing their keys again) and
    /// the `added` records, which replace equal keys of `old`.
    init(extending old: MemoSnapshot?, with added: [Key: MemoRecord]) {
        let most = (old?.count ?? 0) + added.count
        var capacity = 8
        while capacity < most * 2 { capacity <<= 1 }
        mask = capacity - 1
        buckets = .allocate(capacity: capacity)
        buckets.initialize(repeating: Bucket(), count: capacity)
        var count = 0
        if let old {
            for index in 0...old.mask where old.buckets[index].type != nil {
                let bucket = old.buckets[index]
                var target = bucket.hash & mask
                while buckets[target].type != nil { target = (target + 1) & mask }
                buckets[target] = bucket
                count += 1
            }
        }
        for (key, record) in added {
            let hash = Self.hash(key)
            let bucket = Bucket(
                type: ObjectIdentifier(key.type), isSimple: key.isSimple, ownType: record.entry.valueType == key.type,
                isPerContainer: record.entry.lifetime == .perContainer, hash: hash, key: key,
                entry: record.entry, slot: record.slot)
            var target = hash & mask
            while let type = buckets[target].type {
                // A key memoized again meanwhile (two lookups raced past the snapshot): replace.
                if type == bucket.type, buckets[target].isSimple == bucket.isSimple,
                    bucket.isSimple || buckets[target].key! == key
                {
                    break
                }
                target = (target + 1) & mask
            }
            if buckets[target].type == nil { count += 1 }
            buckets[target] = bucket
        }
        self.count = count
    }

    deinit {
        buckets.deinitialize(count: mask + 1)
        buckets.deallocate()
    }

    /// The bucket answering `key`, unretained: valid only inside the protected read.
    @inline(__always)
    func find(_ key: Key) -> (entry: Unmanaged<AnyEntry>, slot: Unmanaged<AnySlot>?)? {
        let type = ObjectIdentifier(key.type)
        let simple = key.isSimple
        var index = Self.hash(key) & mask
        while true {
            let bucket = buckets + index
            guard let candidate = bucket.pointee.type else { return nil }
            if candidate == type, bucket.pointee.isSimple == simple, simple || bucket.pointee.key! == key {
                return (.passUnretained(bucket.pointee.entry!), bucket.pointee.slot.map { .passUnretained($0) })
            }
            index = (index + 1) & mask
        }
    }

    /// The entry memoized for the simple key (no tag, no arguments) of `type`, and its cache
    /// slot when the registration's own type is `type` (a forwarded type needs a cast) and it
    /// is a cached lifetime; `perContainer` slots only when `perContainerToo` (a memo read for
    /// a transparent child holds its parent's `perContainer` slots, not the child's).
    /// Unretained: valid only inside the protected read. For the cached-read probe.
    func probe(ofType type: ObjectIdentifier, perContainerToo: Bool) -> ProbeResult? {
        var index = Self.hash(type) & mask
        while true {
            let bucket = buckets + index
            guard let candidate = bucket.pointee.type else { return nil }
            if candidate == type, bucket.pointee.isSimple {
                let entry = Unmanaged.passUnretained(bucket.pointee.entry!)
                let ownType = bucket.pointee.ownType
                guard ownType, let slot = bucket.pointee.slot, perContainerToo || !bucket.pointee.isPerContainer
                else { return (entry, nil, ownType) }
                return (entry, .passUnretained(slot), ownType)
            }
            index = (index + 1) & mask
        }
    }

    @inline(__always)
    private static func hash(_ type: ObjectIdentifier) -> Int {
        Int(bitPattern: (UInt(bitPattern: Int(bitPattern: type)) &* 0x9E37_79B9_7F4A_7C15) >> 20)
    }

    @inline(__always)
    private static func hash(_ key: Key) -> Int {
        if key.isSimple { return hash(ObjectIdentifier(key.type)) }
        var bits = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(key.type)))
        if let tag = key.tag { bits ^= UInt(bitPattern: tag.nameHash) }
        for argument in key.arguments {
            bits = bits &* 31 &+ UInt(bitPattern: Int(bitPattern: ObjectIdentifier(argument)))
        }
        return Int(bitPattern: (bits &* 0x9E37_79B9_7F4A_7C15) >> 20)
    }

}

extension Key {
    /// No tag and no arguments: compared by type identity alone.
    @inline(__always) var isSimple: Bool { tag == nil && !hasArguments }
}
