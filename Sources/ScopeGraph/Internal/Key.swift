/// The internal, fast form of a `ServiceKey`: type identities instead of names, so that building
/// and hashing a key on the resolve path builds no strings.
package struct Key: Hashable, @unchecked Sendable {
    // @unchecked: metatypes are immutable global values; `Any.Type` is just not marked Sendable.
    let type: Any.Type
    let tag: ServiceTag?
    let arguments: [Any.Type]

    @inline(__always)
    package init(_ type: Any.Type, tag: ServiceTag?, arguments: [Any.Type] = []) {
        self.type = type
        self.tag = tag
        self.arguments = arguments
    }

    package static func == (lhs: Key, rhs: Key) -> Bool {
        guard lhs.type == rhs.type, lhs.tag == rhs.tag, lhs.arguments.count == rhs.arguments.count else {
            return false
        }
        for index in lhs.arguments.indices where lhs.arguments[index] != rhs.arguments[index] { return false }
        return true
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type))
        hasher.combine(tag)
        hasher.combine(arguments.count)
        for argument in arguments { hasher.combine(ObjectIdentifier(argument)) }
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
