/// Types shared by the probes of `unique` registrations (`UniqueRecordTests`).
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

}
