import ScopeGraph
import Testing

/// A Swift Testing trait that gives a test (each case of a parameterized test, or each test of
/// a suite) a container of its own: a test scope of a shared container, bound to
/// `Container.current`.
///
/// Create it with `.container(_:)` or `.container(_:_:)`. Inside the test, plain `register`
/// calls on the container, made by the test or by code it calls in its task, go into the
/// test's scope; the container's cached instances are not used, every cached lifetime is built
/// afresh for the test; `@Injected` and the other property wrappers resolve from the
/// container. Tests running in parallel never see each other's registrations or instances,
/// and nothing outlives the test. See `Container.withTestScope(_:operation:)` for what is
/// captured (task-local: not a `Task.detached` or a callback on another thread).
public struct TestContainerTrait: TestTrait, SuiteTrait, TestScoping {
    /// The container the test gets a scope of.
    public let container: Container
    let overrides: @Sendable (OverrideRegistrar) -> Void

    /// Always `true`: on a suite, every test in it gets its own scope.
    public var isRecursive: Bool { true }

    /// Runs `function` in a new test scope of ``container``, with `Container.current` bound
    /// to it.
    /// - Parameters:
    ///   - test: The test being run.
    ///   - testCase: The test case being run.
    ///   - function: The test (or test case) body.
    /// - Throws: What `function` throws.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Container.$current.withValue(container) {
            try await container.withTestScope(overrides, operation: function)
        }
    }
}

extension Trait where Self == TestContainerTrait {
    /// Gives the test, or each test of the suite, its own scope of `container`: what it
    /// registers there stays in the test, and cached instances are its own.
    ///
    /// ```swift
    /// @Test(.container(App.root))
    /// func showsTheFakeProfile() throws {
    ///     App.root.register((any API).self) { _ in FakeAPI() }   // this test only
    ///     #expect(try App.root.resolve(ProfileModel.self).api is FakeAPI)
    /// }
    /// ```
    /// - Parameter container: The shared container; also bound to `Container.current`.
    /// - Returns: The trait.
    public static func container(_ container: Container) -> Self {
        TestContainerTrait(container: container, overrides: { _ in })
    }

    /// Gives the test, or each test of the suite, its own scope of `container`, starting with
    /// `overrides` (a suite's common fakes); registrations in the test answer before them.
    ///
    /// ```swift
    /// @Suite(.container(App.root) { $0.register(Clock.self) { _ in FixedClock() } })
    /// struct ReportTests { … }
    /// ```
    /// - Parameters:
    ///   - container: The shared container; also bound to `Container.current`.
    ///   - overrides: Registers the scope's first overrides; called once per test (or case).
    /// - Returns: The trait.
    public static func container(
        _ container: Container, _ overrides: @escaping @Sendable (OverrideRegistrar) -> Void
    ) -> Self {
        TestContainerTrait(container: container, overrides: overrides)
    }
}
