import ScopeGraphTesting

/// Bytes of heap that registrations and containers keep, measured with glibc's allocator
/// statistics over 10,000 of each.
enum Footprint {
    /// Registrations and containers created for each figure.
    static func count(quick: Bool) -> Int { quick ? 1_000 : 10_000 }

    struct Figures {
        var uniqueRegistration: Double?
        var singletonRegistration: Double?
        var naiveRegistration: Double?
        var rootContainer: Double?
        var childContainer: Double?
    }

    static func measure(count: Int) -> Figures {
        let tags = (0..<count).map { ServiceTag("r\($0)") }
        let names = (0..<count).map { "r\($0)" }
        var figures = Figures()
        figures.uniqueRegistration = Memory.bytesPerCall(count: count, state: Container(name: "footprint")) {
            container, index in
            container.register((any Numbered).self, tag: tags[index], lifetime: .unique) { _ in NumberedService() }
        }
        figures.singletonRegistration = Memory.bytesPerCall(count: count, state: Container(name: "footprint")) {
            container, index in
            container.register((any Numbered).self, tag: tags[index], lifetime: .singleton) { _ in NumberedService() }
        }
        figures.naiveRegistration = Memory.bytesPerCall(count: count, state: NaiveLocator()) { naive, index in
            naive.register((any Numbered).self, tag: names[index]) { NumberedService() }
        }
        figures.rootContainer = Memory.bytesPerObject(count: count) { _ in Container(name: "empty") }
        // The parent's share counts too: with this many live children, its table of them.
        let parent = Container(name: "parent")
        figures.childContainer = Memory.bytesPerObject(count: count) { _ in
            parent.makeChild(name: "child")
        }
        return figures
    }

    static func printFigures(_ figures: Figures, count: Int) {
        func show(_ value: Double?) -> String { value.map { Report.number($0) } ?? "unavailable (no mallinfo2)" }
        print(
            "memory (glibc heap in use, over \(count) of each, dictionary growth included):"
        )
        print("  bytes per registration (.unique):    \(show(figures.uniqueRegistration))")
        print("  bytes per registration (.singleton): \(show(figures.singletonRegistration))")
        print("  bytes per naive-locator registration: \(show(figures.naiveRegistration))")
        print("  bytes per empty root container:      \(show(figures.rootContainer))")
        print("  bytes per empty child container:     \(show(figures.childContainer))")
    }

    static func machineLine(_ figures: Figures) -> String {
        let fields: [(String, Double?)] = [
            ("registration_bytes", figures.uniqueRegistration),
            ("singleton_registration_bytes", figures.singletonRegistration),
            ("naive_registration_bytes", figures.naiveRegistration),
            ("container_bytes", figures.rootContainer),
            ("child_container_bytes", figures.childContainer),
        ]
        return (["bench P-memory"] + fields.compactMap { name, value in value.map { "\(name)=\(Report.number($0))" } })
            .joined(separator: " ")
    }
}
