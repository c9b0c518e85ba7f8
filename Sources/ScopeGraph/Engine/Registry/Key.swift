/// The internal form of a `ServiceKey`: type identities instead of names, so that building
/// and hashing a key on the resolve path builds no strings.
package struct Key: Hashable, @unchecked Sendable {
    // @unchecked: metatypes are immutable global values; `Any.Type` is just not marked Sendable.
    let type: Any.Type
    let tag: ServiceTag?
    /// The argument types, `nil` for none (most keys): a key is copied many times per resolve,
    /// and a `nil` reference is copied without touching a reference count, where an empty
    /// array is retained and released at each copy.
    private let argumentTypes: ArgumentTypes?

    package init(_ type: Any.Type, tag: ServiceTag?, arguments: [Any.Type] = []) {
        self.type = type
        self.tag = tag
        self.argumentTypes = arguments.isEmpty ? nil : ArgumentTypes(arguments)
    }

    /// The runtime argument types, in order; empty for most keys.
    var arguments: [Any.Type] { argumentTypes?.types ?? [] }

    /// True when the key has runtime argument types.
    var hasArguments: Bool { argumentTypes != nil }

    package static func == (lhs: Key, rhs: Key) -> Bool {
        guard lhs.type == rhs.type, sameTag(lhs.tag, rhs.tag) else { return false }
        guard let left = lhs.argumentTypes else { return rhs.argumentTypes == nil }
        guard let right = rhs.argumentTypes else { return false }
        return left === right || left.types.elementsEqual(right.types, by: ==)
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
        if let argumentTypes {
            for argument in argumentTypes.types {
                bits = (bits ^ UInt(bitPattern: Int(bitPattern: ObjectIdentifier(argument)))) &* 0x9E37_79B9_7F4A_7C15
            }
        }
        return Int(bitPattern: bits)
    }

    /// True when both keys have the same argument types.
    func sameArguments(as other: Key) -> Bool {
        arguments.elementsEqual(other.arguments, by: ==)
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

/// A key's runtime argument types (`Key.arguments`), boxed so that the many keys without any
/// hold `nil`.
final class ArgumentTypes: @unchecked Sendable {
    // @unchecked: immutable; metatypes are immutable global values.
    let types: [Any.Type]
    init(_ types: [Any.Type]) { self.types = types }
}
