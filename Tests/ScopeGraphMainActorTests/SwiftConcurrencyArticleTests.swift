import ScopeGraph
import Testing

// The section "Modules with default main-actor isolation" of the Swift Concurrency article
// (Sources/ScopeGraph/ScopeGraph.docc/SwiftConcurrency.md), as the article shows it, compiled
// with default main-actor isolation as the article says; Scripts/docs/check-articles.py fails
// when the two differ. A line that ends in `// hidden in the docs` is left out of the
// comparison. The types are nested so that they cannot clash with this target's other tests.

@Suite struct SwiftConcurrencyArticleTests {
    // Built with default main-actor isolation: every declaration here is @MainActor.
    final class AppSettings {
        var theme = "dark"
    }

    final class Greeter {
        let settings: AppSettings
        init(settings: AppSettings) { self.settings = settings }
        func greet(_ name: String) -> String { "Hello, \(name) (\(settings.theme))" }
    }

    final class NotesStore {
        private(set) var notes: [String] = []
        static func open() async throws -> NotesStore {
            try await Task.sleep(for: .milliseconds(10))  // stands for real I/O
            let store = NotesStore()
            store.notes = ["first"]
            return store
        }
    }

    final class NotesViewModel {
        let store: NotesStore
        let greeter: Greeter
        init(store: NotesStore, greeter: Greeter) { (self.store, self.greeter) = (store, greeter) }
        var title: String { greeter.greet("notes") + ": \(store.notes.count)" }
    }

    func makeApp() -> Container {
        let app = Container(name: "app")
        app.register(AppSettings.self, lifetime: .singleton, mainActorFactory: { _ in AppSettings() })
        app.register(Greeter.self, mainActorFactory: { r in Greeter(settings: try r.resolve()) })
        app.register(NotesStore.self, lifetime: .eagerSingleton) { _ in try await NotesStore.open() }
        app.register(NotesViewModel.self) { @MainActor r in
            NotesViewModel(store: try await r.resolveAsync(), greeter: try r.resolve())
        }
        return app
    }

    @Test func theModulesTypesRegisterAndResolve() async throws {  // hidden in the docs
        let app = makeApp()
        let greeter = try app.resolve(Greeter.self)  // main-actor factory, run here
        print(greeter.greet("Ada"))  // Hello, Ada (dark)

        let viewModel = try await app.resolveAsync(NotesViewModel.self)
        print(viewModel.title)  // Hello, notes (dark): 1
        #expect(greeter.greet("Bo") == "Hello, Bo (dark)")
        #expect(viewModel.title == "Hello, notes (dark): 1")
    }

    @Test func theMainActorFormTakesTheLabelOrTheClosuresIsolation() throws {
        let app = Container(name: "app")
        app.register(AppSettings.self, lifetime: .singleton, mainActorFactory: { _ in AppSettings() })
        app.register(Greeter.self, mainActorFactory: { r in Greeter(settings: try r.resolve()) })
        app.register(Greeter.self) { @MainActor r in Greeter(settings: try r.resolve()) }  // the same
        #expect(try app.resolve(Greeter.self).greet("Ada") == "Hello, Ada (dark)")
    }
}
