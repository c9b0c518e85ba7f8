extension ResolutionScope {
    /// Runs `body` with this scope bound to the current task (and its child tasks), on the
    /// caller's actor: `body` is never sent to another isolation domain, so callers isolated
    /// to an actor (a `@MainActor` test) may pass closures that touch its state.
    package func run<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        ScopeActivity.enter()
        defer { ScopeActivity.leave() }
        return try await ResolutionScope.$current.withValue(self, operation: body, isolation: isolation)
    }
}
