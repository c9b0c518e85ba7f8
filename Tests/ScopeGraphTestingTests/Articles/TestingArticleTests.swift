import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing
import XCTest

// The code of the testing article
// (Sources/ScopeGraphTesting/ScopeGraphTesting.docc/TestingWithScopeGraph.md), as the article
// shows it; Scripts/docs/check-articles.py fails when the two differ. The article declares its
// types at file scope; here they are nested, so that they cannot clash with the fixtures. The
// XCTest examples and the suite that restores a snapshot have an app container of their own, so
// that they never change the one the parallel tests use.

@Suite struct TestingArticleTests {
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

    /// The opening example: with the `.container(_:)` trait, a plain `register` in the body fakes
    /// the API for this test alone, and the singleton `ProfileModel` is the test's own.
    @Test(.container(AppContainer.root))
    func profileGreetsTheFakeUser() throws {
        AppContainer.root.register((any API).self) { _ in FakeAPI(name: "Bo") }  // this test only
        #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Bo")
    }

    @Test func theContainerIsUntouchedByTheTestsScopes() throws {
        #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, from the network")
    }

    /// "Fakes for every test of a suite": the suite's overrides reach every test, and a
    /// registration in a test's body answers before them.
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

    /// "Overriding registrations for one test".
    @Test func profileGreetsTheUser() throws {
        let title = try AppContainer.root.withOverrides { overrides in
            overrides.register((any API).self) { _ in FakeAPI(name: "Ada") }
        } operation: {
            try AppContainer.root.resolve(ProfileModel.self).title()
        }
        #expect(title == "Hello, Ada")
    }

    /// "Overrides have the registrar's full API".
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

    @Test(.overrides(AppContainer.root) { $0.register((any API).self) { _ in FakeAPI(name: "Ada") } })
    func profileGreetsTheUserWithTheTrait() throws {
        #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Ada")
    }

    @Suite(.overrides(AppContainer.root) { $0.register((any API).self) { _ in FakeAPI() } })
    struct ProfileTests {
        @Test func greets() throws {
            #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Ada")  // FakeAPI()
        }

        @Test(.overrides(AppContainer.root) { $0.register((any API).self) { _ in FakeAPI(name: "Bo") } })
        func greetsBo() throws {
            // The test's trait nests inside the suite's.
            #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Bo")
        }
    }

    @Suite(.currentContainer(AppContainer.root))
    struct CurrentContainerExamples {
        @Test func currentIsTheAppContainer() {
            #expect(Container.current === AppContainer.root)
        }
    }

    @Test(.container(AppContainer.root) { $0.register((any API).self) { _ in FakeAPI() } })
    func currentSeesTheFake() throws {
        #expect(try Container.current.resolve(ProfileModel.self).api is FakeAPI)
    }
}

/// The app container of the article's XCTest examples, their own.
enum TestingArticleXCTestExamples {
    typealias FakeAPI = TestingArticleTests.FakeAPI
    typealias ProfileModel = TestingArticleTests.ProfileModel
    typealias API = TestingArticleTests.API
    enum AppContainer {
        static let root: Container = {
            let root = Container(name: "app")
            root.register((any API).self, lifetime: .singleton) { _ in TestingArticleTests.LiveAPI() }
            root.register(ProfileModel.self, lifetime: .singleton) { r in ProfileModel(api: try r.resolve()) }
            return root
        }()
    }
}

/// The article's serialized suite that changes a container and restores it, with a container of
/// its own.
enum TestingArticleSnapshotExamples {
    typealias FakeAPI = TestingArticleTests.FakeAPI
    typealias ProfileModel = TestingArticleTests.ProfileModel
    typealias API = TestingArticleTests.API
    enum AppContainer {
        static let root: Container = {
            let root = Container(name: "app")
            root.register((any API).self, lifetime: .singleton) { _ in TestingArticleTests.LiveAPI() }
            root.register(ProfileModel.self, lifetime: .singleton) { r in ProfileModel(api: try r.resolve()) }
            return root
        }()
    }

    @Suite(.serialized)
    final class MigrationTests {
        let snapshot = AppContainer.root.snapshot()

        init() { AppContainer.root.register((any API).self) { _ in FakeAPI() } }
        deinit { AppContainer.root.restore(snapshot) }

        @Test func usesTheFake() throws {
            #expect(try AppContainer.root.resolve(ProfileModel.self).title() == "Hello, Ada")
        }
    }
}

/// The article's XCTest examples, at file scope as XCTest on Linux needs; the type aliases
/// pick the article's types over the fixtures' `API` and `FakeAPI`.
final class ProfileTests: XCTestCase {
    typealias AppContainer = TestingArticleXCTestExamples.AppContainer  // hidden in the docs
    typealias API = TestingArticleTests.API  // hidden in the docs
    typealias FakeAPI = TestingArticleTests.FakeAPI  // hidden in the docs
    typealias ProfileModel = TestingArticleTests.ProfileModel  // hidden in the docs
    func testProfileGreetsTheFakeUser() throws {
        try AppContainer.root.withTestScope {
            AppContainer.root.register((any API).self) { _ in FakeAPI(name: "Bo") }
            XCTAssertEqual(try AppContainer.root.resolve(ProfileModel.self).title(), "Hello, Bo")
        }
    }

    func testTitleWithOverrides() throws {
        try AppContainer.root.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
        } operation: {
            XCTAssertEqual(try AppContainer.root.resolve(ProfileModel.self).title(), "Hello, Ada")
        }
    }
}

final class CheckoutTests: XCTestCase {
    typealias AppContainer = TestingArticleXCTestExamples.AppContainer  // hidden in the docs
    typealias API = TestingArticleTests.API  // hidden in the docs
    typealias FakeAPI = TestingArticleTests.FakeAPI  // hidden in the docs
    typealias ProfileModel = TestingArticleTests.ProfileModel  // hidden in the docs
    private var snapshot: ContainerSnapshot!

    override func setUp() {
        super.setUp()
        snapshot = AppContainer.root.snapshot()
        AppContainer.root.register((any API).self) { _ in FakeAPI() }
    }

    override func tearDown() {
        AppContainer.root.restore(snapshot)  // the live API is back; caches are empty
        super.tearDown()
    }

    func testTitle() throws {
        XCTAssertEqual(try AppContainer.root.resolve(ProfileModel.self).title(), "Hello, Ada")
    }
}
