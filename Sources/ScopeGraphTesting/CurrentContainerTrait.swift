import ScopeGraph
import Testing

/// A Swift Testing trait that binds `Container.current` (what `@Injected` and the other
/// property wrappers resolve from) for a test, or for every test of a suite.
///
/// Create it with `.currentContainer(_:)`. It only binds: registrations and instances are the
/// container's own, shared with other tests (`.container(_:)` gives the test a scope of its
/// own). The binding is task-local: it reaches the test's child tasks, not a `Task.detached`
/// or a callback on another thread.
public struct CurrentContainerTrait: TestTrait, SuiteTrait, TestScoping {
    /// The container bound to `Container.current`.
    public let container: Container

    /// Always `true`: on a suite, every test in it runs with the binding.
    public var isRecursive: Bool { true }

    /// Runs `function` with `Container.current` bound to ``container``.
    /// - Parameters:
    ///   - test: The test being run.
    ///   - testCase: The test case being run.
    ///   - function: The test (or test case) body.
    /// - Throws: What `function` throws.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Container.$current.withValue(container, operation: function)
    }
}

extension Trait where Self == CurrentContainerTrait {
    /// Binds `Container.current` to `container` for the test, or for each test of the suite,
    /// and nothing more.
    ///
    /// ```swift
    /// @Test(.currentContainer(testContainer))
    /// func screenInjectsTheTestContainer() {
    ///     let screen = ProfileScreen()          // @Injected resolves from testContainer
    ///     #expect(screen.model.api is FakeAPI)
    /// }
    /// ```
    /// - Parameter container: The container property wrappers resolve from.
    /// - Returns: The trait.
    public static func currentContainer(_ container: Container) -> Self {
        CurrentContainerTrait(container: container)
    }
}
