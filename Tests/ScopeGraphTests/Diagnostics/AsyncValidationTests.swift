import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// `validate()` and `validateAsync()` with async and main-actor registrations: the synchronous
/// dry run cannot run them and says so (a warning naming `validateAsync()`, not an error); the
/// async one runs them, and reports what is really broken.
@Suite struct AsyncValidationTests: ServiceFixtures {
    final class Missing: Sendable {}

    private func makeApp() -> Container {
        let app = Container(name: "app")
        app.register(Shared.self, lifetime: .singleton) { _ in
            await Task.yield()
            return Shared()
        }
        app.register(Holder.self) { r in Holder(shared: try await r.resolveAsync()) }
        return app
    }

    @Test func validateReportsAnAsyncRegistrationAsNotRunAndStaysValid() {
        let report = makeApp().validate()
        #expect(report.isValid)
        #expect(report.issues.count == 2)
        #expect(report.issues.allSatisfy { $0.severity == .warning && $0.message.contains("validateAsync()") })
    }

    @Test func validateAsyncRunsAsyncFactoriesAndFindsNothingWrong() async {
        let report = await makeApp().validateAsync()
        #expect(report.isValid)
        #expect(report.issues.isEmpty, "\(report)")
    }

    @Test func validateAsyncReportsAMissingDependencyOfAnAsyncFactory() async {
        let app = makeApp()
        app.register(Missing.self, tag: "broken") { r in
            _ = try await r.resolveAsync(Shared.self, tag: "absent")
            return Missing()
        }
        let report = await app.validateAsync()
        #expect(!report.isValid)
        #expect(report.issues.contains { $0.severity == .error && $0.key.typeName == "Missing" })
    }

    @Test func dependencyGraphAsyncHasTheEdgesAsyncFactoriesResolve() async {
        let graph = await makeApp().dependencyGraphAsync()
        #expect(graph.edges.contains { $0.from.key.typeName == "Holder" && $0.to.key.typeName == "Shared" })
    }
}
