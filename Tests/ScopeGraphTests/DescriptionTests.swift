import ScopeGraph
import Testing

/// Descriptions: a container prints its subtree (names, links, registrations); keys, tags,
/// lifetimes and error kinds print as the decisions give them.
@Suite struct DescriptionTests {
    protocol Logging: Sendable {}
    final class Logger: Logging, Sendable {}
    final class Database: Sendable {}
    final class Session: Sendable {}
    final class Checkout: Sendable {}

    @Test func anEmptyContainerPrintsItsName() {
        #expect(Container(name: "app").description == "Container 'app'")
    }

    @Test func aContainerPrintsItsSubtreeLinksAndRegistrations() {
        let app = Container(name: "app")
        app.register(Logger.self, lifetime: .singleton) { _ in Logger() }.implements((any Logging).self)
        app.register(Database.self, tag: "primary", lifetime: .singleton) { _ in Database() }
        let checkout = app.makeChild(name: "checkout")
        let payments = app.makeChild(name: "payments")
        let catalog = Container(name: "catalog")
        checkout.collaborate(with: payments, catalog)
        checkout.register(Checkout.self) { _ in Checkout() }
        checkout.register(Session.self, lifetime: .perContainer) { (_, id: Int, token: String) in Session() }
        payments.register(Database.self, tag: 2, lifetime: .unique) { _ in Database() }
        let expected = [
            "Container 'app'",
            "  Logger — singleton (implements \(String(describing: (any Logging).self)))",
            "  Database[tag: \"primary\"] — singleton",
            "  Container 'checkout' (collaborates with: payments, catalog)",
            "    Checkout — graph",
            "    Session(Int, String) — perContainer",
            "  Container 'payments'",
            "    Database[tag: \"2\"] — unique",
        ]
        #expect(app.description.split(separator: "\n").map(String.init) == expected)
        withExtendedLifetime((checkout, payments, catalog)) {}
    }

    @Test func registrationsAreListedInRegistrationOrder() {
        let container = Container(name: "app")
        container.register(Session.self) { _ in Session() }
        container.register(Checkout.self, lifetime: .weakSingleton) { _ in Checkout() }
        container.register(Database.self, lifetime: .eagerSingleton) { _ in Database() }
        container.register(Logger.self, tag: "audit") { (_, level: Int) in Logger() }
        #expect(
            container.description.split(separator: "\n").map(String.init) == [
                "Container 'app'",
                "  Session — graph",
                "  Checkout — weakSingleton",
                "  Database — eagerSingleton",
                "  Logger[tag: \"audit\"](Int) — graph",
            ])
    }

    @Test func aChildsDescriptionStartsAtTheChild() {
        let app = Container(name: "app")
        app.register(Logger.self) { _ in Logger() }
        let feature = app.makeChild(name: "feature")
        feature.register(Checkout.self) { _ in Checkout() }
        #expect(feature.description == "Container 'feature'\n  Checkout — graph")
    }

    @Test func aDroppedChildLeavesTheDescription() {
        let app = Container(name: "app")
        do {
            let feature = app.makeChild(name: "feature")
            #expect(app.description.contains("Container 'feature'"))
            withExtendedLifetime(feature) {}
        }
        #expect(!app.description.contains("feature"))
    }

    @Test func removedAndReplacedRegistrationsLeaveTheDescription() {
        let app = Container(name: "app")
        let removed = app.register(Session.self) { _ in Session() }
        app.register(Logger.self) { _ in Logger() }.implements((any Logging).self)
        app.register(Logger.self, lifetime: .singleton) { _ in Logger() }
        app.remove(removed)
        #expect(app.description == "Container 'app'\n  Logger — singleton")
    }

    @Test(arguments: [
        (ServiceKey(typeName: "Database"), "Database"),
        (ServiceKey(typeName: "Database", tag: "x"), "Database[tag: \"x\"]"),
        (ServiceKey(typeName: "Session", argumentTypeNames: ["Int", "String"]), "Session(Int, String)"),
        (ServiceKey(typeName: "Session", tag: "x", argumentTypeNames: ["Int"]), "Session[tag: \"x\"](Int)"),
        (ServiceKey(typeName: "Session", tag: 3), "Session[tag: \"3\"]"),
    ])
    func aServiceKeyPrintsLikeTheRequest(key: ServiceKey, expected: String) {
        #expect(key.description == expected)
    }

    @Test func aRegistrationsKeyNamesTheTypeAsStringDescribingDoes() {
        let container = Container(name: "app")
        let registration = container.register([Int: String].self, tag: "map") { (_, n: Double) in [:] }
        #expect(registration.key.typeName == String(describing: [Int: String].self))
        #expect(registration.key.argumentTypeNames == ["Double"])
        #expect(registration.key.tag == "map")
    }

    enum Region: String { case europe = "eu" }

    @Test(
        arguments: [
            (ServiceTag("primary"), "\"primary\""),
            ("literal", "\"literal\""),
            (42, "\"42\""),
            (ServiceTag(Region.europe), "\"eu\""),
        ] as [(ServiceTag, String)])
    func aTagPrintsAsItsQuotedName(tag: ServiceTag, expected: String) {
        #expect(tag.description == expected)
    }

    @Test(arguments: [
        (Lifetime.unique, "unique"), (.graph, "graph"), (.singleton, "singleton"),
        (.weakSingleton, "weakSingleton"), (.eagerSingleton, "eagerSingleton"), (.perContainer, "perContainer"),
    ])
    func aLifetimePrintsAsWrittenInSwift(lifetime: Lifetime, expected: String) {
        #expect(lifetime.description == expected)
    }
}
