@testable import ScopeGraph

/// Types and a check shared by the suites about `unique` registrations stored as records
/// (`UniqueRecordTests`, `UniqueRecordProbeTests`).
enum RecordFixtures {
    final class Widget: Sendable {
        let name: String
        init(_ name: String = "widget") { self.name = name }
    }
    protocol Named: Sendable { var name: String { get } }
    final class Gear: Named {
        let name: String
        init(_ name: String = "gear") { self.name = name }
    }
    final class Payload: Sendable {}

    /// Whether `type`'s key (with `tag`) is still a record in `container` (read under its lock).
    static func isRecord<T>(_ type: T.Type, tag: ServiceTag? = nil, in container: Container) -> Bool {
        container.withState { $0.registrations[Key(T.self, tag: tag)]?.plainFunction != nil }
    }
}
