/// A name that tells apart several registrations of the same type.
///
/// Tags are compared by name. String and integer literals, and enums with `String` raw values,
/// all make tags:
///
/// ```swift
/// container.register(Database.self, tag: "primary") { _ in PostgresDatabase() }
/// enum Store: String { case cache, archive }
/// container.register(Storage.self, tag: ServiceTag(Store.cache)) { _ in MemoryStorage() }
/// let db = try container.resolve(Database.self, tag: "primary")
/// ```
///
/// Named `ServiceTag`, not `Tag`, because Swift Testing exports a `Tag` type and tests import both.
public struct ServiceTag: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The name with its hash, computed once when the tag is made: a lookup by a tag made
    /// ahead (`static let primary: ServiceTag = "primary"`) never hashes the string again.
    let storage: Name

    /// The tag's name; two tags are equal when their names are.
    public var name: String { storage.string }

    /// Creates a tag with the given name.
    /// - Parameter name: The name that identifies the tag.
    public init(_ name: String) { storage = Name(name) }

    /// Creates a tag from an enum case (or any value) whose raw value is a `String`.
    /// - Parameter value: The value whose `rawValue` becomes the tag's name.
    public init<R: RawRepresentable>(_ value: R) where R.RawValue == String { storage = Name(value.rawValue) }

    /// Creates a tag from a string literal: `tag: "primary"`.
    public init(stringLiteral value: String) { storage = Name(value) }

    /// Creates a tag from an integer literal: `tag: 2` is the tag named `"2"`.
    public init(integerLiteral value: Int) { storage = Name(String(value)) }

    /// The tag's name, quoted: `"primary"`.
    public var description: String { "\"\(name)\"" }

    /// Tags are equal when their names are.
    public static func == (lhs: ServiceTag, rhs: ServiceTag) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.storage.hash == rhs.storage.hash && lhs.storage.string == rhs.storage.string)
    }

    /// Feeds the name's hash, computed when the tag was made, to `hasher`.
    /// - Parameter hasher: The hasher to combine into.
    public func hash(into hasher: inout Hasher) { hasher.combine(storage.hash) }

    /// The name's `hashValue`, computed when the tag was made.
    var nameHash: Int { storage.hash }

    /// A tag's name and its hash; immutable.
    final class Name: Sendable {
        let string: String
        let hash: Int

        init(_ string: String) {
            self.string = string
            hash = string.hashValue
        }
    }
}
