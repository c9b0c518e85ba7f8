/// The internal, fast form of a `ServiceKey`: type identities instead of names, so that building
/// and hashing a key on the resolve path builds no strings.
@usableFromInline
package struct Key: Hashable, @unchecked Sendable {
    // @unchecked: metatypes are immutable global values; `Any.Type` is just not marked Sendable.
    let type: Any.Type
    let tag: ServiceTag?
    let arguments: [Any.Type]

    @inline(__always) @usableFromInline
    package init(_ type: Any.Type, tag: ServiceTag?, arguments: [Any.Type] = []) {
        self.type = type
        self.tag = tag
        self.arguments = arguments
    }

    @usableFromInline
    package static func == (lhs: Key, rhs: Key) -> Bool {
        guard lhs.type == rhs.type, sameTag(lhs.tag, rhs.tag), lhs.arguments.count == rhs.arguments.count else {
            return false
        }
        for index in lhs.arguments.indices where lhs.arguments[index] != rhs.arguments[index] { return false }
        return true
    }

    /// `lhs == rhs` for tags, first by identity: the same tag object (the usual case, a
    /// key compared with its own registration's) answers without touching reference counts.
    @inline(__always)
    private static func sameTag(_ lhs: ServiceTag?, _ rhs: ServiceTag?) -> Bool {
        guard let lhs else { return rhs == nil }
        guard let rhs else { return false }
        return lhs.storage === rhs.storage || lhs == rhs
    }

    @usableFromInline
    package func hash(into hasher: inout Hasher) { hasher.combine(mixedBits) }

    /// What `Dictionary` and `Set` use: `mixedBits` with the table's seed, without running a
    /// `Hasher` (SipHash costs several hundred instructions per key, more than the rest of a
    /// registration's lookup). A key's parts are type identities and the tag's precomputed
    /// string hash, which an outsider does not choose, so a seeded mix is enough.
    @usableFromInline
    package func _rawHashValue(seed: Int) -> Int {
        var bits = UInt(bitPattern: mixedBits ^ seed)
        // The final mix of MurmurHash3: every input bit reaches the low bits a table indexes by.
        bits = (bits ^ (bits >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        bits = (bits ^ (bits >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return Int(bitPattern: bits ^ (bits >> 33))
    }

    /// The type, the tag's name hash and the argument types, folded into one word.
    @inline(__always)
    private var mixedBits: Int {
        var bits = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(type)))
        if let tag { bits = (bits ^ UInt(bitPattern: tag.nameHash)) &* 0x9E37_79B9_7F4A_7C15 }
        for argument in arguments {
            bits = (bits ^ UInt(bitPattern: Int(bitPattern: ObjectIdentifier(argument)))) &* 0x9E37_79B9_7F4A_7C15
        }
        return Int(bitPattern: bits)
    }

    /// True when both keys have the same argument types.
    func sameArguments(as other: Key) -> Bool {
        arguments.count == other.arguments.count && zip(arguments, other.arguments).allSatisfy { $0 == $1 }
    }

    /// The public, printable form.
    var serviceKey: ServiceKey {
        ServiceKey(
            typeName: String(describing: type), tag: tag,
            argumentTypeNames: arguments.map { String(describing: $0) })
    }

    /// The argument types of a parameter pack, in order.
    package static func argumentTypes<each A>(_ types: repeat (each A).Type) -> [Any.Type] {
        var result: [Any.Type] = []
        repeat result.append(each types)
        return result
    }
}
