import ScopeGraph
import Testing

extension Container {
    /// Runs `operation` in a test scope of this container: registrations made on this
    /// container while it runs, by the current task and its child tasks, go into the scope
    /// instead of the container, and every cached instance is the scope's own.
    ///
    /// A test scope is an override scope (see `withOverrides(_:operation:)`) that also takes
    /// plain `register` calls: a test fakes a service in one line, with the container's own
    /// API, and nothing it registers can reach another test or outlive it, even when tests
    /// run in parallel on one shared container. A registration made in the scope answers
    /// before the container's own and before `overrides`; `remove` of a registration made in
    /// the scope removes it from the scope. Registrations made from work that does not run
    /// in this task or a child task of it (a `Task.detached`, a `DispatchQueue` or `Thread`
    /// callback) are not captured: they go into the container, as outside any scope.
    /// `removeAll()` is not captured either.
    ///
    /// ```swift
    /// try App.root.withTestScope {
    ///     App.root.register((any API).self) { _ in FakeAPI() }
    ///     #expect(try App.root.resolve(ProfileModel.self).api is FakeAPI)
    /// }
    /// // App.root's own API registration is untouched.
    /// ```
    ///
    /// In Swift Testing, the `.container(_:)` trait runs a test in a test scope.
    /// - Parameters:
    ///   - overrides: Registers overrides before `operation` starts; nothing by default.
    ///   - operation: The work whose registrations are captured.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws; the scope ends first.
    public func withTestScope<R>(
        _ overrides: (OverrideRegistrar) -> Void = { _ in }, operation: () throws -> R
    ) rethrows -> R {
        let (scope, recorder) = makeOverrideScope(overrides, capturing: true)
        return try withExtendedLifetime(recorder) { try scope.run(operation) }
    }

    /// Runs asynchronous `operation` in a test scope of this container (see
    /// `withTestScope(_:operation:)`); the `onShutdown` hooks of the instances the scope
    /// cached run when it ends, and a hook that throws is recorded as an issue of the test.
    ///
    /// ```swift
    /// try await App.root.withTestScope {
    ///     App.root.register(Database.self, lifetime: .singleton) { _ in try await FakeDatabase.open() }
    ///     #expect(try await App.root.resolveAsync(Database.self).isFake)
    /// }
    /// ```
    /// - Parameters:
    ///   - overrides: Registers overrides before `operation` starts; nothing by default.
    ///   - isolation: The actor `operation` runs on; the caller's, by default.
    ///   - operation: The work whose registrations are captured.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws; the scope ends first.
    public func withTestScope<R>(
        _ overrides: (OverrideRegistrar) -> Void = { _ in }, isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        let (scope, recorder) = makeOverrideScope(overrides, capturing: true)
        return try await Self.run(scope, keeping: recorder, isolation: isolation, operation)
    }
}
