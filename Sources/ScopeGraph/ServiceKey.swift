/// What identifies a registration: the type, the tag and the types of the runtime arguments.
///
/// Errors, validation reports and dependency graphs name registrations by their `ServiceKey`.
/// Its `description` reads like the request: `Database`, `Database[tag: "primary"]`,
/// `Session(Int, String)`.
public struct ServiceKey: Hashable, Sendable, CustomStringConvertible {
    /// The type's name, `String(describing: T.self)`.
    public let typeName: String
    /// The tag, or `nil` for an untagged registration.
    public let tag: ServiceTag?
    /// The names of the runtime argument types, in order; empty when there are none.
    public let argumentTypeNames: [String]

    /// Creates a key from its parts.
    /// - Parameters:
    ///   - typeName: The name of the service type.
    ///   - tag: The tag, or `nil`.
    ///   - argumentTypeNames: The names of the runtime argument types, in order.
    public init(typeName: String, tag: ServiceTag? = nil, argumentTypeNames: [String] = []) {
        self.typeName = typeName
        self.tag = tag
        self.argumentTypeNames = argumentTypeNames
    }

    /// `Type`, `Type[tag: "x"]`, `Type(Int, String)` or `Type[tag: "x"](Int)`.
    public var description: String {
        var text = typeName
        if let tag { text += "[tag: \(tag)]" }
        if !argumentTypeNames.isEmpty { text += "(" + argumentTypeNames.joined(separator: ", ") + ")" }
        return text
    }
}
