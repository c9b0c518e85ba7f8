/// Types shared by the probes of `unique` registrations (`UniqueRecordTests`).
package enum RecordFixtures {
    package final class Widget: Sendable {
        package let name: String
        package init(_ name: String = "widget") { self.name = name }
    }
    package protocol Named: Sendable { var name: String { get } }
    package final class Gear: Named {
        package let name: String
        package init(_ name: String = "gear") { self.name = name }
    }
    package final class Payload: Sendable { package init() {} }

}
