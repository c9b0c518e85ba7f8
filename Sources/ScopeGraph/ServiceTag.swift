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
    /// The tag's name; two tags are equal when their names are.
    public let name: String

    /// Creates a tag with the given name.
    /// - Parameter name: The name that identifies the tag.
    public init(_ name: String) { self.name = name }

    /// Creates a tag from an enum case (or any value) whose raw value is a `String`.
    /// - Parameter value: The value whose `rawValue` becomes the tag's name.
    public init<R: RawRepresentable>(_ value: R) where R.RawValue == String { self.name = value.rawValue }

    /// Creates a tag from a string literal: `tag: "primary"`.
    public init(stringLiteral value: String) { self.name = value }

    /// Creates a tag from an integer literal: `tag: 2` is the tag named `"2"`.
    public init(integerLiteral value: Int) { self.name = String(value) }

    /// The tag's name, quoted: `"primary"`.
    public var description: String { "\"\(name)\"" }
}
