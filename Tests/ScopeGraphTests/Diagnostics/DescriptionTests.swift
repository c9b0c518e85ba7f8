import ScopeGraph
import ScopeGraphTestSupport
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

// MARK: Contract probes: names, links and registrations of a whole subtree

extension DescriptionTests {
    /// `description` against the contract: "prints its subtree: names, collaboration links,
    /// and registrations (type, tag, lifetime, arguments)".
    @Suite struct ContractProbes: ProbeFixtures {
        /// A tagged, an argument-taking (tagged too) and a forwarded registration (a forward with
        /// a tag), two containers linked both ways (a cycle the printing must not follow), and a
        /// grandchild: every one of them appears, each container once.
        @Test func aSubtreeWithACollaborationCyclePrintsEveryNameLinkAndRegistration() {
            let root = Container(name: "root")
            root.register(Dep.self, tag: "primary", lifetime: .singleton) { _ in Dep() }
            root.register(Value.self, tag: "sized", lifetime: .unique) { (_, id: Int, _: String) in Value(id: id) }
            root.register(Impl.self, lifetime: .weakSingleton) { _ in Impl() }
                .implements((any Service).self, tag: "main")
            let left = root.makeChild(name: "left")
            let right = root.makeChild(name: "right")
            let leaf = right.makeChild(name: "leaf")
            left.collaborateBothWays(with: right)
            right.collaborate(with: left)  // a duplicate link is ignored
            leaf.register(Top.self, lifetime: .perContainer) { _ in Top() }
            let service = String(describing: (any Service).self)
            #expect(
                root.description.split(separator: "\n").map(String.init) == [
                    "Container 'root'",
                    #"  Dep[tag: "primary"] — singleton"#,
                    #"  Value[tag: "sized"](Int, String) — unique"#,
                    #"  Impl — weakSingleton (implements \#(service)[tag: "main"])"#,
                    "  Container 'left' (collaborates with: right)",
                    "  Container 'right' (collaborates with: left)",
                    "    Container 'leaf'",
                    "      Top — perContainer",
                ])
            withExtendedLifetime((left, right, leaf)) {}
        }

        /// A registration whose forwarded key another registration took over no longer lists
        /// it, and does not answer for it.
        @Test func aForwardTakenOverByAnotherRegistrationLeavesTheFirstOnesDescription() throws {
            let container = Container(name: "c")
            container.register(NotService.self) { _ in NotService() }.implements((any Service).self)
            container.register((any Service).self) { _ in Impl() }
            let service = String(describing: (any Service).self)
            #expect(
                container.description.split(separator: "\n").map(String.init) == [
                    "Container 'c'",
                    "  NotService — graph",
                    "  \(service) — graph",
                ])
            #expect(try container.resolve((any Service).self) is Impl)
        }

        /// A dropped grandchild leaves its parent's description, and a dropped collaborator
        /// leaves the links of the container that linked it.
        @Test func droppedGrandchildrenAndCollaboratorsLeaveTheDescription() {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            do {
                let grandchild = child.makeChild(name: "grandchild")
                let partner = Container(name: "partner")
                child.collaborate(with: partner)
                #expect(root.description.contains("Container 'grandchild'"))
                #expect(root.description.contains("(collaborates with: partner)"))
                withExtendedLifetime((grandchild, partner)) {}
            }
            #expect(root.description == "Container 'root'\n  Container 'child'")
        }

        /// A forward added after the registration, and an `onResolved` block, change the
        /// printed line only by the forwarded types.
        @Test func aForwardAddedLaterIsPrintedWithItsRegistration() {
            let c = Container(name: "c")
            let registration = c.register(NamedPlugin.self) { _ in NamedPlugin("p") }
            registration.onResolved { _, _ in }
            #expect(c.description == "Container 'c'\n  NamedPlugin — graph")
            registration.implements((any Plugin).self).implements((any Plugin).self, tag: 2)
            let plugin = String(describing: (any Plugin).self)
            #expect(
                c.description
                    == "Container 'c'\n  NamedPlugin — graph (implements \(plugin), \(plugin)[tag: \"2\"])")
        }
    }
}
