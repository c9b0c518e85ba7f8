import ScopeGraph
import Testing

// This target is compiled with default main-actor isolation (`-default-isolation MainActor`),
// as new Xcode app targets are: every type and function here is `@MainActor` unless it says
// otherwise. Nothing in this file says otherwise: no `nonisolated`, no `@unchecked Sendable`,
// no `MainActor.assumeIsolated`, no `@preconcurrency`; at most a `@MainActor` on a closure.

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
        try await Task.sleep(for: .milliseconds(1))
        let store = NotesStore()
        store.notes = ["first"]
        return store
    }
}

final class NotesViewModel {
    let store: NotesStore
    let greeter: Greeter
    init(store: NotesStore, greeter: Greeter) {
        self.store = store
        self.greeter = greeter
    }
    var title: String { greeter.greet("notes") + ": \(store.notes.count)" }
}

/// An app module built with default main-actor isolation registers and resolves its own types.
@Suite struct DefaultMainActorIsolationTests {
    private func makeApp() -> Container {
        let app = Container(name: "app")
        app.register(AppSettings.self, lifetime: .singleton, mainActorFactory: { _ in AppSettings() })
        app.register(Greeter.self, mainActorFactory: { r in Greeter(settings: try r.resolve()) })
        app.register(NotesStore.self, lifetime: .eagerSingleton) { _ in try await NotesStore.open() }
        app.register(NotesViewModel.self) { @MainActor r in
            NotesViewModel(store: try await r.resolveAsync(), greeter: try r.resolve())
        }
        return app
    }

    @Test func plainAppClassesResolveSynchronouslyOnTheMainActor() throws {
        let app = makeApp()
        let greeter = try app.resolve(Greeter.self)
        #expect(greeter.greet("Ada") == "Hello, Ada (dark)")
        #expect(try app.resolve(AppSettings.self) === greeter.settings)
    }

    @Test func aViewModelWithAnAsyncServiceResolvesWithResolveAsync() async throws {
        let app = makeApp()
        let viewModel = try await app.resolveAsync(NotesViewModel.self)
        #expect(viewModel.title == "Hello, notes (dark): 1")
        #expect(try await app.resolveAsync(NotesStore.self) === viewModel.store)
    }

    @Test func anAsyncServiceBuiltByBootstrapAsyncResolvesSynchronously() async throws {
        let app = makeApp()
        try await app.bootstrapAsync()
        let store = try app.resolve(NotesStore.self)
        #expect(store.notes == ["first"])
    }

    @Test func anAsyncServiceNotYetBuiltAsksForResolveAsync() throws {
        let app = makeApp()
        #expect {
            try app.resolve(NotesStore.self)
        } throws: { error in
            (error as? ResolutionError)?.description.contains("resolveAsync") == true
        }
    }
}
