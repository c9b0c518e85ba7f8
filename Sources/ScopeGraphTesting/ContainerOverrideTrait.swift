import ScopeGraph
import Testing

/// A Swift Testing trait that runs a test, or every test of a suite, inside an override scope
/// of a container; see `Container.withOverrides(_:operation:)`.
///
/// Create it with `.overrides(_:_:)`. On a suite, each test (and each case of a parameterized
/// test) gets a scope of its own, so tests that run in parallel never share a fake or an
/// instance built with one. Traits on a test nest inside those of its suite: the test's
/// override of a key wins.
public struct ContainerOverrideTrait: TestTrait, SuiteTrait, TestScoping {
    /// The container the overrides apply to.
    public let container: Container
    let overrides: @Sendable (OverrideRegistrar) -> Void

    /// Always `true`: on a suite, every test in it (nested suites included) runs in its own scope.
    public var isRecursive: Bool { true }

    /// Runs `function` inside a new override scope of ``container``.
    /// - Parameters:
    ///   - test: The test being run.
    ///   - testCase: The test case being run.
    ///   - function: The test (or test case) body.
    /// - Throws: What `function` throws.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await container.withOverrides(overrides, operation: function)
    }
}

extension Trait where Self == ContainerOverrideTrait {
    /// Runs the test, or each test of the suite, with overrides on `container`, visible only
    /// to that test's task and its child tasks.
    ///
    /// ```swift
    /// @Suite(.overrides(AppContainer.root) { $0.register(API.self) { _ in FakeAPI() } })
    /// struct ProfileTests {
    ///     @Test func loadsTheFakeProfile() throws {
    ///         #expect(try AppContainer.root.resolve(ProfileModel.self).api is FakeAPI)
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - container: The container whose lookups the overrides answer.
    ///   - overrides: Registers the overrides; called once per test (or test case).
    /// - Returns: The trait.
    public static func overrides(
        _ container: Container, _ overrides: @escaping @Sendable (OverrideRegistrar) -> Void
    ) -> Self {
        ContainerOverrideTrait(container: container, overrides: overrides)
    }
}
