import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// A chain of the three kinds of factory: a main-actor view model depending on an async database
/// singleton depending on a synchronous config. It resolves (a) with an async main-actor view
/// model factory through `resolveAsync` from a background task, (b) with the database built by
/// `bootstrapAsync()` and a `mainActorFactory:` view model resolved synchronously on the main
/// actor, and (c) fails with `.requiresAsync` when neither holds.
@Suite struct MixedChainTests {
    final class Config: Sendable {
        let databasePath: String
        init(databasePath: String) { self.databasePath = databasePath }
    }
    final class Database: Sendable {
        let config: Config
        private init(config: Config) { self.config = config }

        /// Opens the database asynchronously, as a real one would.
        static func open(config: Config) async throws -> Database {
            try await Task.sleep(for: .milliseconds(1))
            return Database(config: config)
        }
    }
    @MainActor final class ViewModel {
        nonisolated let db: Database
        nonisolated let builtOnMainActor: Bool
        var title = "Inbox"
        init(db: Database) {
            self.db = db
            builtOnMainActor = MainActorProbe.isOnMainActor
        }
    }

    /// The synchronous config and the async database (under `databaseLifetime`), with counters
    /// of their factory runs.
    struct Fixture {
        let container = Container(name: "app")
        let configRuns = Counter()
        let databaseRuns = Counter()

        init(databaseLifetime: Lifetime) {
            let configRuns = configRuns
            let databaseRuns = databaseRuns
            container.register(Config.self, lifetime: .singleton, counting: configRuns) {
                Config(databasePath: "/tmp/app.sqlite")
            }
            container.register(Database.self, lifetime: databaseLifetime) { r in
                databaseRuns.increment()
                return try await Database.open(config: try r.resolve())
            }
        }
    }

    /// (a) The view model's factory is async and main-actor isolated; `resolveAsync` from a
    /// background task builds the chain: the view model on the main actor, the database once,
    /// from the config; a second view model shares the database.
    @Test func anAsyncMainActorViewModelResolvesTheChainFromABackgroundTask() async throws {
        let fixture = Fixture(databaseLifetime: .singleton)
        let container = fixture.container
        let viewModelRuns = Counter()
        container.register(ViewModel.self) { @MainActor r in
            viewModelRuns.increment()
            return ViewModel(db: try await r.resolveAsync())
        }
        let viewModels = try await withAsyncWatchdog(seconds: 10) { () -> [ViewModel] in
            try await Task.detached {
                [try await container.resolveAsync(ViewModel.self), try await container.resolveAsync(ViewModel.self)]
            }.value
        }
        guard let viewModels else { return }
        #expect(viewModels[0] !== viewModels[1], "the view model is a graph registration")
        #expect(viewModels.allSatisfy { $0.builtOnMainActor })
        #expect(viewModels[0].db === viewModels[1].db)
        #expect(viewModels[0].db.config === (try container.resolve(Config.self)))
        #expect(try container.resolve(Database.self) === viewModels[0].db)
        #expect(fixture.databaseRuns.value == 1)
        #expect(fixture.configRuns.value == 1)
        #expect(viewModelRuns.value == 2)
    }

    /// (b) The database is an eager singleton built by `bootstrapAsync()`; the view model is a
    /// `mainActorFactory:` registration, and a synchronous resolve on the main actor builds it
    /// inline with the bootstrapped database.
    @Test func aMainActorFactoryViewModelResolvesSynchronouslyOnceTheDatabaseIsBootstrapped() async throws {
        let fixture = Fixture(databaseLifetime: .eagerSingleton)
        let container = fixture.container
        container.register(ViewModel.self, mainActorFactory: { r in ViewModel(db: try r.resolve()) })
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (ViewModel, Database) in
            try await container.bootstrapAsync()
            let viewModel = try await MainActor.run { try container.resolve(ViewModel.self) }
            return (viewModel, try container.resolve(Database.self))
        }
        guard let (viewModel, database) = outcome else { return }
        #expect(viewModel.builtOnMainActor)
        #expect(viewModel.db === database)
        #expect(database.config.databasePath == "/tmp/app.sqlite")
        #expect(fixture.databaseRuns.value == 1)
    }

    /// (c) With neither (a `mainActorFactory:` view model, the database not built), a
    /// synchronous resolve on the main actor throws `.requiresAsync` about the database, with
    /// the path from the view model and a description naming `resolveAsync` (and
    /// `bootstrapAsync()` for an eager singleton); the database's factory does not run.
    @Test(arguments: [Lifetime.singleton, .eagerSingleton])
    func withNeitherTheSynchronousResolveOnTheMainActorThrowsRequiresAsync(databaseLifetime: Lifetime)
        async throws
    {
        let fixture = Fixture(databaseLifetime: databaseLifetime)
        let container = fixture.container
        container.register(ViewModel.self, mainActorFactory: { r in ViewModel(db: try r.resolve()) })
        let error = try await withAsyncWatchdog(seconds: 10) {
            await MainActor.run { syncResolutionError { _ = try container.resolve(ViewModel.self) } }
        }
        guard let error else { return }
        #expect(error?.kind.caseName == "requiresAsync")
        #expect(error?.key.typeName == "Database")
        #expect(error?.pathDescriptions == ["ViewModel", "Database"])
        #expect(error?.description.contains("resolveAsync") == true)
        if databaseLifetime == .eagerSingleton {
            #expect(error?.description.contains("bootstrapAsync()") == true)
        }
        #expect(fixture.databaseRuns.value == 0)
    }
}
