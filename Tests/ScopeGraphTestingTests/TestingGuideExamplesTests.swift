import ScopeGraphTesting
import Testing

// Examples from Docs/Testing.md, so that the build checks them and the tests check what the
// guide says they do. Each test names the section it mirrors; keep them in sync. The types are
// nested here only so that they cannot clash with the fixtures; the guide declares them at file
// scope, and call `withOverrides` with two trailing closures, as swift-format asks.

@Suite struct TestingGuideExamplesTests {
    protocol API: Sendable { func fetchName() throws -> String }
    struct LiveAPI: API { func fetchName() throws -> String { "from the network" } }
    struct FakeAPI: API {
        var name = "Ada"
        func fetchName() throws -> String { name }
    }

    final class ProfileModel: Sendable {
        let api: any API
        init(api: any API) { self.api = api }
        func title() throws -> String { "Hello, \(try api.fetchName())" }
    }

    enum AppContainer {
        static let root: Container = {
            let root = Container(name: "app")
            root.register((any API).self, lifetime: .singleton) { _ in LiveAPI() }
            root.register(ProfileModel.self, lifetime: .singleton) { r in ProfileModel(api: try r.resolve()) }
            return root
        }()
    }

    /// Docs/Testing.md, "Overriding registrations for one test": the singleton `ProfileModel` is
    /// built with the fake inside the scope, and the overrides are gone when it ends.
    @Test func profileGreetsTheUser() throws {
        let title = try AppContainer.root.withOverrides { overrides in
            overrides.register((any API).self) { _ in FakeAPI(name: "Ada") }
        } operation: {
            try AppContainer.root.resolve(ProfileModel.self).title()
        }
        #expect(title == "Hello, Ada")
        #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, from the network")
    }

    /// Docs/Testing.md, "Overriding registrations for one test": overrides have the registrar's
    /// full API (`implements`, runtime arguments).
    @Test func overridesTakeImplementsAndRuntimeArguments() throws {
        let greeting = try AppContainer.root.withOverrides { overrides in
            overrides.register(FakeAPI.self, lifetime: .singleton) { _ in FakeAPI() }
                .implements((any API).self)
            overrides.register(String.self, tag: "greeting") { (_, name: String) in "Hi \(name)" }
        } operation: {
            try AppContainer.root.resolve(String.self, tag: "greeting", arguments: "Bo")
        }
        #expect(greeting == "Hi Bo")
    }

    /// Docs/Testing.md, the opening example: with the `.container(_:)` trait, a plain
    /// `register` in the body fakes the API for this test alone, and the singleton
    /// `ProfileModel` is the test's own, built with the fake.
    @Test(.container(AppContainer.root))
    func profileGreetsTheFakeUser() throws {
        AppContainer.root.register((any API).self) { _ in FakeAPI(name: "Bo") }  // this test only
        #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Bo")
    }

    /// Docs/Testing.md, the opening example without Swift Testing: `withTestScope` keeps the
    /// body's registration to the scope, and the container is untouched afterwards.
    @Test func withTestScopeGreetsTheFakeUserAndLeavesTheContainerAlone() throws {
        try AppContainer.root.withTestScope { () throws in
            AppContainer.root.register((any API).self) { _ in FakeAPI(name: "Bo") }
            #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Bo")
        }
        #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, from the network")
    }

    /// Docs/Testing.md, "Fakes for every test of a suite": the suite's overrides reach every
    /// test, and a registration in a test's body answers before them.
    @Suite(.container(AppContainer.root) { $0.register((any API).self) { _ in FakeAPI(name: "Ada") } })
    struct ProfileScreenTests {
        @Test func greetsAda() throws {
            #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Ada")
        }

        @Test func greetsBo() throws {
            AppContainer.root.register((any API).self) { _ in FakeAPI(name: "Bo") }  // answers before the suite's fake
            #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Bo")
        }
    }
}
