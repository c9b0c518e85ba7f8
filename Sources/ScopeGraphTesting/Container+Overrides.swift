import ScopeGraph
import Testing

extension Container {
    /// Runs `operation` with overrides on this container, visible only to the current task and
    /// its child tasks.
    ///
    /// While the operation runs, a lookup that visits this container finds the overrides
    /// before the container's own registrations, and every cached lifetime (singleton, weak,
    /// eager, `perContainer`) resolved in it is cached in the scope rather than in any
    /// container: built afresh once per scope, so a singleton that depends on an overridden
    /// service gets the fake even if the container already holds the real one. Nothing built
    /// in the scope is written to a container's cache, and the scope's instances are released
    /// when it ends. Tests running in parallel on one container do not see each other's
    /// overrides. Scopes nest; the innermost override of a key wins.
    ///
    /// The overrides end when `operation` returns or throws. Work that does not run in this
    /// task or a child task of it (a `Task.detached`, a `DispatchQueue` or `Thread` callback)
    /// does not see them.
    ///
    /// ```swift
    /// try container.withOverrides({ $0.register(API.self) { _ in FakeAPI() } }) {
    ///     let model = try container.resolve(ProfileModel.self)   // built with FakeAPI
    ///     #expect(model.api is FakeAPI)
    /// }
    /// ```
    /// - Parameters:
    ///   - overrides: Registers the overrides; called once, before `operation`.
    ///   - operation: The work that sees the overrides.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws; the overrides end first.
    public func withOverrides<R>(
        _ overrides: (OverrideRegistrar) -> Void, operation: () throws -> R
    ) rethrows -> R {
        let (scope, recorder) = makeOverrideScope(overrides)
        return try withExtendedLifetime(recorder) { try scope.run(operation) }
    }

    /// Runs asynchronous `operation` with overrides on this container, visible only to the
    /// current task and its child tasks (`async let`, task groups, `Task { }` created inside).
    ///
    /// Behaves as the synchronous `withOverrides(_:operation:)`: overrides answer first, cached
    /// lifetimes are cached in the scope, scopes nest and the innermost wins, and the scope
    /// ends when `operation` returns or throws. A `Task.detached` does not inherit it.
    ///
    /// ```swift
    /// try await container.withOverrides({ $0.register(API.self) { _ in FakeAPI() } }) {
    ///     let profile = try await container.resolve(ProfileModel.self).load()
    ///     #expect(profile.name == "Fake")
    /// }
    /// ```
    /// - Parameters:
    ///   - overrides: Registers the overrides; called once, before `operation`.
    ///   - isolation: The actor `operation` runs on; the caller's, by default, so a
    ///     `@MainActor` test can pass a closure that touches main-actor state.
    ///   - operation: The work that sees the overrides.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws; the overrides end first.
    public func withOverrides<R>(
        _ overrides: (OverrideRegistrar) -> Void, isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        let (scope, recorder) = makeOverrideScope(overrides)
        return try await Self.run(scope, keeping: recorder, isolation: isolation, operation)
    }

    /// Runs `operation` in `scope` on the caller's actor, then the `onShutdown` hooks of what
    /// the scope cached (also when `operation` throws).
    static func run<R>(
        _ scope: ResolutionScope, keeping recorder: OverrideRecorder, isolation: isolated (any Actor)?,
        _ operation: () async throws -> R
    ) async rethrows -> R {
        defer { withExtendedLifetime(recorder) {} }
        let result: R
        do {
            result = try await scope.runAsync(isolation: isolation, operation)
        } catch {
            await shutDown(scope)
            throw error
        }
        await shutDown(scope)
        return result
    }

    /// Runs the `onShutdown` hooks of the instances an async override scope cached, as the
    /// scope ends; a hook that throws is recorded as an issue of the running test
    /// (`withOverrides` rethrows only its operation's error).
    private static func shutDown(_ scope: ResolutionScope) async {
        for failure in await scope.shutDownInstances() {
            Issue.record(
                "ScopeGraphTesting: the onShutdown hook of \(failure.key) (cached by an override scope) threw: \(failure.error)"
            )
        }
    }

    /// A new scope, nested in the current task's scope, holding the overrides on this container;
    /// with `capturing`, plain registrations on this container made while it runs go into it.
    func makeOverrideScope(
        _ overrides: (OverrideRegistrar) -> Void, capturing: Bool = false
    ) -> (ResolutionScope, OverrideRecorder) {
        let scope = ResolutionScope(parent: ResolutionScope.current, capturing: capturing ? [self] : [])
        let recorder = OverrideRecorder(scope.overrideStore(for: self))
        overrides(OverrideRegistrar(container: self, recorder: recorder))
        recorder.close()
        return (scope, recorder)
    }
}
