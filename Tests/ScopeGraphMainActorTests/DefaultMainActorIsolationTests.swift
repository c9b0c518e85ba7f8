import ScopeGraph
import Testing

// This target is compiled with default main-actor isolation (`-default-isolation MainActor`),
// as new Xcode app targets are: every type and function here is `@MainActor` unless it says
// otherwise. Nothing in this file says otherwise: no `nonisolated`, no `@unchecked Sendable`,
// no `MainActor.assumeIsolated`, no `@preconcurrency`; at most a `@MainActor` on a closure.

// The app's types, and the container that registers them, are those of the article's section
// on this isolation (SwiftConcurrencyArticleTests), declared there once.
typealias AppSettings = SwiftConcurrencyArticleTests.AppSettings
typealias Greeter = SwiftConcurrencyArticleTests.Greeter
typealias NotesStore = SwiftConcurrencyArticleTests.NotesStore
typealias NotesViewModel = SwiftConcurrencyArticleTests.NotesViewModel

/// An app module built with default main-actor isolation registers and resolves its own types.
@Suite struct DefaultMainActorIsolationTests {
    /// The article's container of these types.
    private func makeApp() -> Container { SwiftConcurrencyArticleTests().makeApp() }

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
