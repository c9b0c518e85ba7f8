import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// Records which module registered into which container, in order.
private final class InstallLog: Sendable {
    private let entries = Locked<[String]>([])
    var all: [String] { entries.withLock { $0 } }
    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
}

/// Registers `String` (tagged "greeting") as its own name, and logs the install.
private struct NamedModule: ContainerModule {
    let name: String
    let log: InstallLog

    func register(in container: Container) {
        log.record("\(name)->\(container.name)")
        container.register(String.self, tag: "greeting") { _ in name }
        container.register(String.self, tag: ServiceTag(name)) { _ in name }
    }
}

@Suite struct ModuleTests {
    @Test func installsModulesInTheOrderGivenLastRegistrationWins() throws {
        let log = InstallLog()
        let app = Container(name: "app")
        app.install(NamedModule(name: "core", log: log), NamedModule(name: "network", log: log))
        #expect(log.all == ["core->app", "network->app"])
        #expect(try app.resolve(String.self, tag: "greeting") == "network")
        #expect(try app.resolve(String.self, tag: "core") == "core")
    }

    @Test func installsAnArrayOfModules() throws {
        let log = InstallLog()
        let modules: [any ContainerModule] = ["a", "b", "c"].map { NamedModule(name: $0, log: log) }
        let app = Container(name: "app")
        app.install(modules)
        #expect(log.all == ["a->app", "b->app", "c->app"])
    }

    @Test func createsARootWithModules() throws {
        let log = InstallLog()
        let app = Container(name: "app", modules: NamedModule(name: "core", log: log))
        #expect(app.name == "app")
        #expect(app.parent == nil)
        #expect(try app.resolve(String.self, tag: "core") == "core")
    }

    @Test func installsFeatureModulesIntoANewChildOnly() throws {
        let log = InstallLog()
        let app = Container(name: "app", modules: NamedModule(name: "core", log: log))
        let checkout = app.makeChild(
            name: "checkout", modules: NamedModule(name: "cart", log: log), NamedModule(name: "payments", log: log))
        let search = app.makeChild(name: "search", modules: [NamedModule(name: "index", log: log)])

        #expect(log.all == ["core->app", "cart->checkout", "payments->checkout", "index->search"])
        #expect(checkout.parent === app)
        #expect(search.parent === app)
        #expect(try checkout.resolve(String.self, tag: "greeting") == "payments")
        #expect(try search.resolve(String.self, tag: "greeting") == "index")
        #expect(try app.resolve(String.self, tag: "greeting") == "core")
        #expect(try app.resolveIfRegistered(String.self, tag: "cart") == nil)
        #expect(try search.resolveIfRegistered(String.self, tag: "cart") == nil)
        #expect(try checkout.resolve(String.self, tag: "core") == "core")
    }

    @Test func configuresARootAtCreation() throws {
        let app = Container(name: "app") { c in
            c.register(Int.self) { _ in 7 }
        }
        #expect(app.name == "app")
        #expect(try app.resolve(Int.self) == 7)
    }

    @Test func configuresAChildAtCreation() throws {
        let app = Container(name: "app") { c in c.register(Int.self) { _ in 7 } }
        let feature = app.makeChild(name: "feature") { c in
            c.register(String.self) { r in "value \(try r.resolve(Int.self))" }
        }
        #expect(feature.parent === app)
        #expect(try feature.resolve(String.self) == "value 7")
        #expect(try app.resolveIfRegistered(String.self) == nil)
    }

    @Test func aThrowingConfigurationBlockThrowsFromTheInitializer() {
        struct Misconfigured: Error {}
        #expect(throws: Misconfigured.self) {
            _ = try Container(name: "app") { _ in throw Misconfigured() }
        }
    }

    @Test func plainInitializersStayUnambiguousNextToTheModuleAndConfigurationForms() {
        let root = Container()
        let named = Container(name: "named")
        let child = named.makeChild(name: "child")
        #expect(root.name == "root")
        #expect(child.parent === named)
        #expect(named.children.map(\.name) == ["child"])
    }
}
