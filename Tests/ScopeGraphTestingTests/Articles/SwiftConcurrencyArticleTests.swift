import ScopeGraph
import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

// The code of the Swift Concurrency article
// (Sources/ScopeGraph/ScopeGraph.docc/SwiftConcurrency.md), as the article shows it;
// Scripts/docs/check-articles.py fails when the two differ. A line that ends in
// `// hidden in the docs` is left out of the comparison. The article declares its types at file
// scope, and so does this file (the test functions too, so that the article's longest lines fit
// the line length); it is in ScopeGraphTestingTests because two sections use override scopes.
// The section on default main-actor isolation is in ScopeGraphMainActorTests.

struct Config: Sendable {
    var databasePath = "notes.sqlite"
}

final class Database: Sendable {
    let path: String
    private init(path: String) { self.path = path }

    static func open(at path: String) async throws -> Database {
        try await Task.sleep(for: .milliseconds(10))  // stands for real I/O
        return Database(path: path)
    }
}

final class NotesRepository: Sendable {
    let database: Database
    init(database: Database) { self.database = database }
}

@MainActor final class NotesViewModel {
    let repository: NotesRepository
    var title = "Notes"
    init(repository: NotesRepository) { self.repository = repository }
}

private struct Conversation: Sendable {
    let id: Int
    let database: Database
}

@MainActor private final class ConversationViewModel {
    let conversation: Conversation
    let title: String
    init(conversation: Conversation, title: String) { (self.conversation, self.title) = (conversation, title) }
}

@Test func everyFormHasARuntimeArgumentsVariant() async throws {
    let app = Container(name: "app")
    app.register(Database.self, lifetime: .singleton) { _ in try await Database.open(at: "notes.sqlite") }
    app.register(Conversation.self) { (r, id: Int) in
        Conversation(id: id, database: try await r.resolveAsync())
    }
    app.register(
        ConversationViewModel.self,
        mainActorFactory: { (r, conversation: Conversation, title: String) in
            ConversationViewModel(conversation: conversation, title: title)
        })

    let conversation = try await app.resolveAsync(Conversation.self, tag: nil, arguments: 42)
    let viewModel = try await app.resolveAsync(ConversationViewModel.self, tag: nil, arguments: conversation, "Inbox")
    #expect(conversation.id == 42)
    #expect(viewModel.title == "Inbox")
}

@Test func anAsyncFactoryAwaitsItsDependencies() async throws {
    let app = Container(name: "app")
    app.register(Config.self, lifetime: .singleton) { _ in Config() }
    app.register(Database.self, lifetime: .singleton) { r in
        try await Database.open(at: try r.resolve(Config.self).databasePath)
    }
    app.register(NotesRepository.self) { r in
        NotesRepository(database: try await r.resolveAsync())
    }

    let repository = try await app.resolveAsync(NotesRepository.self)
    print(repository.database.path)  // notes.sqlite
    #expect(repository.database.path == "notes.sqlite")
}

@Test func bootstrapAsyncBuildsAsyncServicesForSynchronousCode() async throws {
    final class NotesScreen {
        @Injected var database: Database
    }

    let app = Container(name: "app")
    app.register(Config.self, lifetime: .singleton) { _ in Config() }
    app.register(Database.self, lifetime: .eagerSingleton) { r in
        try await Database.open(at: try r.resolve(Config.self).databasePath)
    }
    app.register(NotesRepository.self) { r in
        NotesRepository(database: try r.resolve())  // synchronous: Database must be cached
    }

    try await app.bootstrapAsync()

    let repository = try app.resolve(NotesRepository.self)  // no await: Database is cached
    let screen = Container.$current.withValue(app) { NotesScreen() }
    print(screen.database === repository.database)  // true
    #expect(screen.database === repository.database)
}

@Test func mainActorFactories() async throws {
    let app = Container(name: "app")
    // What the example prints, collected so that the test can check it.
    let printed = Guarded<[String]>([])
    func print(_ line: String) { printed.withLock { $0.append(line) } }
    app.register(Database.self, lifetime: .eagerSingleton) { _ in try await Database.open(at: "notes.sqlite") }
    app.register(NotesRepository.self) { r in NotesRepository(database: try r.resolve()) }
    app.register(
        NotesViewModel.self,
        mainActorFactory: { r in
            NotesViewModel(repository: try r.resolve())
        })
    try await app.bootstrapAsync()
    let database = try app.resolve(Database.self)  // hidden in the docs

    @MainActor func showNotes() throws {
        let viewModel = try app.resolve(NotesViewModel.self)  // on the main actor: runs the factory here
        #expect(viewModel.repository.database === database)  // hidden in the docs
        print(viewModel.title)
    }

    func prefetchNotes() async throws {  // nonisolated: runs anywhere
        let viewModel = try await app.resolveAsync(NotesViewModel.self)  // the factory runs on the main actor
        #expect(viewModel.repository.database === database)  // hidden in the docs
        print(await viewModel.title)
    }
    try await showNotes()
    try await prefetchNotes()
    #expect(printed.current == ["Notes", "Notes"])
    // Off the main actor, a synchronous resolve cannot run the factory (nothing is cached: graph).
    let offMainActor = await runOnNewThread { resolutionErrorKind { _ = try app.resolve(NotesViewModel.self) } }
    #expect(offMainActor == "requiresMainActor")
}

@Test func anAsyncFactoryIsolatedToTheMainActor() async throws {
    let app = Container(name: "app")
    app.register(Database.self, lifetime: .singleton) { _ in try await Database.open(at: "notes.sqlite") }
    app.register(NotesRepository.self) { r in NotesRepository(database: try await r.resolveAsync()) }
    app.register(NotesViewModel.self) { @MainActor r in
        NotesViewModel(repository: try await r.resolveAsync())
    }

    let viewModel = try await app.resolveAsync(NotesViewModel.self)  // the factory runs on the main actor
    #expect(await viewModel.title == "Notes")
    #expect(throws: ResolutionError.self) { try Container(name: "other").resolve(NotesViewModel.self) }
}

@Test func aSynchronousFactoryThatNeedsAnAsyncOneThrowsRequiresAsync() throws {
    let app = Container(name: "app")
    app.register(Config.self, lifetime: .singleton) { _ in Config() }
    app.register(Database.self, lifetime: .singleton) { r in
        try await Database.open(at: try r.resolve(Config.self).databasePath)
    }
    app.register(NotesRepository.self) { r in NotesRepository(database: try r.resolve()) }

    do {
        _ = try app.resolve(NotesRepository.self)
    } catch {
        print(error)
    }
    let error = try #require(throws: ResolutionError.self) { try app.resolve(NotesRepository.self) }
    #expect(error.kind == .requiresAsync)
}

@Test func aMainActorFactoryOffTheMainActorThrowsRequiresMainActor() async throws {
    let app = Container(name: "app")
    app.register(Database.self, lifetime: .singleton) { _ in try await Database.open(at: "notes.sqlite") }
    app.register(NotesRepository.self) { r in NotesRepository(database: try await r.resolveAsync()) }
    app.register(
        NotesViewModel.self,
        mainActorFactory: { r in
            NotesViewModel(repository: try r.resolve())
        })

    let result = await Task.detached {
        do {
            _ = try app.resolve(NotesViewModel.self)
            return "resolved"
        } catch {
            return "\(error)"
        }
    }.value
    print(result)
    #expect(result.hasPrefix("ResolutionError: NotesViewModel has a main-actor factory"))
}

@Test func aCancelledCallerStopsWaitingWhileTheBuildGoesOn() async throws {
    final class SearchIndex: Sendable {
        static func build() async throws -> SearchIndex {
            print("building the index")
            try await Task.sleep(for: .milliseconds(300))
            return SearchIndex()
        }
    }

    let app = Container(name: "app")
    app.register(SearchIndex.self, lifetime: .singleton) { _ in try await SearchIndex.build() }

    let first = Task { try await app.resolveAsync(SearchIndex.self) }
    let second = Task { try await app.resolveAsync(SearchIndex.self) }
    try await Task.sleep(for: .milliseconds(50))
    first.cancel()

    do {
        _ = try await first.value
    } catch {
        print(type(of: error))  // CancellationError
    }
    let index = try await second.value
    print(index === (try await app.resolveAsync(SearchIndex.self)))  // true
    #expect(index === (try await app.resolveAsync(SearchIndex.self)))
}

@Test func aFailedBuildCachesNothingAndTheNextResolveBuildsAgain() async throws {
    struct Offline: Error {}

    actor Attempts {
        private var count = 0
        func next() -> Int {
            count += 1
            return count
        }
    }

    let app = Container(name: "app")
    let attempts = Attempts()
    app.register(Database.self, lifetime: .singleton) { _ in
        try await Task.sleep(for: .milliseconds(100))
        if await attempts.next() == 1 { throw Offline() }  // the first build fails
        return try await Database.open(at: "notes.sqlite")
    }

    let first = Task { try await app.resolveAsync(Database.self) }
    let second = Task { try await app.resolveAsync(Database.self) }
    for task in [first, second] {
        do {
            _ = try await task.value
        } catch let error as ResolutionError {
            print(error.kind)  // factoryFailed(Offline()), for both
        }
    }
    let database = try await app.resolveAsync(Database.self)  // builds again
    print(database.path, await attempts.next() - 1)  // notes.sqlite 2
    #expect(await attempts.next() == 4)
}

private final class Session: Sendable {}
private final class Inbox: Sendable {
    let session: Session
    init(session: Session) { self.session = session }
}
private final class Outbox: Sendable {
    let session: Session
    init(session: Session) { self.session = session }
}
private final class Mailer: Sendable {
    let inbox: Inbox
    let outbox: Outbox
    init(inbox: Inbox, outbox: Outbox) { (self.inbox, self.outbox) = (inbox, outbox) }
}
private final class Left: Sendable {
    init(right: Right) {}
}
private final class Right: Sendable {
    init(left: Left) {}
}
private final class Catalog: Sendable {
    let db: Database
    init(db: Database) { self.db = db }
}
private final class Orders: Sendable {
    let db: Database
    init(db: Database) { self.db = db }
}
private final class Shop: Sendable {
    let catalog: Catalog
    let orders: Orders
    init(catalog: Catalog, orders: Orders) { (self.catalog, self.orders) = (catalog, orders) }
}

/// "One resolve across suspension points".
@Test func graphInstancesAreSharedAcrossSuspensionPoints() async throws {
    let app = Container(name: "app")
    app.register(Session.self) { _ in Session() }  // graph: one per resolve
    app.register(Inbox.self) { r in Inbox(session: try r.resolve()) }  // synchronous
    app.register(Outbox.self) { r in
        try await Task.sleep(for: .milliseconds(10))
        return Outbox(session: try r.resolve())
    }
    app.register(Mailer.self) { r in
        Mailer(inbox: try await r.resolveAsync(), outbox: try await r.resolveAsync())
    }

    let mailer = try await app.resolveAsync(Mailer.self)
    print(mailer.inbox.session === mailer.outbox.session)  // true
    #expect(mailer.inbox.session === mailer.outbox.session)
}

@Test func aCycleThroughAsyncFactoriesIsReportedWithItsPath() async throws {
    let app = Container(name: "app")
    app.register(Left.self) { r in Left(right: try await r.resolveAsync()) }
    app.register(Right.self) { r in Right(left: try await r.resolveAsync()) }
    await #expect {
        try await app.resolveAsync(Left.self)
    } throws: { error in
        (error as? ResolutionError)?.path.map(\.description) == ["Left", "Right", "Left"]
    }
}

@Test func childTasksAreBranchesOfTheResolve() async throws {
    let app = Container(name: "app")
    app.register(Database.self, lifetime: .singleton) { _ in try await Database.open(at: "notes.sqlite") }
    app.register(Catalog.self) { r in Catalog(db: try await r.resolveAsync()) }
    app.register(Orders.self) { r in Orders(db: try await r.resolveAsync()) }
    app.register(Shop.self) { r in
        async let catalog: Catalog = r.resolveAsync()
        async let orders: Orders = r.resolveAsync()
        return Shop(catalog: try await catalog, orders: try await orders)  // one Database
    }
    let shop = try await app.resolveAsync(Shop.self)
    #expect(shop.catalog.db === shop.orders.db)
}

protocol Clock: Sendable { var now: String { get } }
struct SystemClock: Clock { var now: String { "system time" } }
struct FixedClock: Clock { var now: String { "fixed time" } }

final class Report {
    @Injected var clock: any Clock  // resolved from Container.current when the report is made
    static func make() async throws -> Report {
        try await Task.sleep(for: .milliseconds(1))
        return Report()
    }
}

@MainActor final class ReportViewModel {
    @Injected var clock: any Clock
}

@Test func taskLocalsReachAsyncAndMainActorFactories() async throws {  // hidden in the docs
    let app = Container(name: "app")
    app.register((any Clock).self) { _ in SystemClock() }
    app.register(Report.self) { _ in try await Report.make() }
    app.register(ReportViewModel.self, mainActorFactory: { _ in ReportViewModel() })

    let report = try await Container.$current.withValue(app) {
        try await app.resolveAsync(Report.self)
    }
    print(report.clock.now)  // system time

    try await app.withOverrides {
        $0.register((any Clock).self) { _ in FixedClock() }
    } operation: {
        let report = try await Container.$current.withValue(app) { try await app.resolveAsync(Report.self) }
        let viewModel = try await Container.$current.withValue(app) { try await app.resolveAsync(ReportViewModel.self) }
        print(report.clock.now, await viewModel.clock.now)  // fixed time fixed time
        #expect(report.clock.now == "fixed time")  // hidden in the docs
    }
    #expect(report.clock.now == "system time")
}

func makeNotesApp() -> Container {
    let app = Container(name: "app")
    app.register(Config.self, lifetime: .singleton) { _ in Config() }
    app.register(Database.self, lifetime: .singleton) { r in
        try await Database.open(at: try r.resolve(Config.self).databasePath)
    }
    app.register(NotesRepository.self) { r in NotesRepository(database: try await r.resolveAsync()) }
    app.register(NotesViewModel.self) { @MainActor r in
        NotesViewModel(repository: try await r.resolveAsync())
    }
    return app
}

@Test func validationReportsAsyncRegistrationsAsNotRunAndValidateAsyncRunsThem() async throws {  // hidden in the docs
    let app = makeNotesApp()
    print(app.validate())
    print(await app.validateAsync())
    print(await app.dependencyGraphAsync().mermaid())
    #expect(app.validate().warnings.count == 3)
    #expect(await app.validateAsync().issues.isEmpty)
}

/// "Testing": overrides reach the factories an async resolve runs.
@Test func notesComeFromTheFakeDatabase() async throws {
    let app = makeNotesApp()  // from the validation example above
    try await app.withOverrides { overrides in
        overrides.register(Database.self, lifetime: .singleton) { _ in
            try await Database.open(at: ":memory:")
        }
    } operation: {
        let viewModel = try await app.resolveAsync(NotesViewModel.self)
        #expect(viewModel.repository.database.path == ":memory:")
    }
}

@Test func theScreenShowsTheFakeViewModel() async throws {
    let app = makeNotesApp()
    let database = try await Database.open(at: ":memory:")
    try await app.withOverrides { overrides in
        overrides.register(
            NotesViewModel.self,
            mainActorFactory: { _ in
                let viewModel = NotesViewModel(repository: NotesRepository(database: database))
                viewModel.title = "Fake notes"
                return viewModel
            })
    } operation: {
        let viewModel = try await app.resolveAsync(NotesViewModel.self)
        #expect(await viewModel.title == "Fake notes")
    }
}

/// "Known limits": an async singleton is built by a resolve of its own. (A suite of its own:
/// the fixtures have a `Screen`.)
@Suite struct AsyncSingletonBuildArticleTests {
    final class Session: Sendable {}
    final class Store: Sendable {
        let session: Session
        init(session: Session) { self.session = session }
    }
    final class Screen: Sendable {
        let session: Session
        let store: Store
        init(session: Session, store: Store) { (self.session, self.store) = (session, store) }
    }

    @Test func anAsyncSingletonIsBuiltByAResolveOfItsOwn() async throws {
        let app = Container(name: "app")
        app.register(Session.self) { _ in Session() }  // graph
        app.register(Store.self, lifetime: .singleton) { r in
            try await Task.sleep(for: .milliseconds(1))
            return Store(session: try r.resolve())
        }
        app.register(Screen.self) { r in Screen(session: try r.resolve(), store: try await r.resolveAsync()) }

        let screen = try await app.resolveAsync(Screen.self)
        print(screen.session === screen.store.session)  // false: the singleton was built by a resolve of its own
        #expect(screen.session !== screen.store.session)
    }
}
