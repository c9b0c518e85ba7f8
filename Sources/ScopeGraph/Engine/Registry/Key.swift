/// The internal form of a `ServiceKey`: type identities instead of names, so that building
/// and hashing a key on the resolve path builds no strings.
package struct Key: Hashable, @unchecked Sendable {
    // @unchecked: metatypes are immutable global values; `Any.Type` is just not marked Sendable.
    let type: Any.Type
    let tag: ServiceTag?
    let arguments: [Any.Type]

    package init(_ type: Any.Type, tag: ServiceTag?, arguments: [Any.Type] = []) {
        self.type = type
        self.tag = tag
        self.arguments = arguments
    }

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

    /// Hashes the type, the tag's precomputed name hash and the argument types, folded into
    /// one word first, so a key costs one `Hasher` round whatever its parts.
    package func hash(into hasher: inout Hasher) { hasher.combine(mixedBits) }

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
