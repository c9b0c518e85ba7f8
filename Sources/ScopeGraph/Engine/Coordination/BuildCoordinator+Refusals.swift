/// What the coordinator reports instead of waiting: the errors of a synchronous resolve that
/// would wait for a resolve that may suspend, and the declined wait of `resolveAsync`'s
/// shortcut.
extension BuildCoordinator {
    /// What `acquire` throws instead of waiting when the resolve declines to
    /// (`ResolutionContext.declinesWaitingAtTop`): `resolveAsync`'s shortcut then waits for
    /// the build as a reader, suspending.
    struct DeclinedWait: Error {
        let slot: AnySlot
    }

    /// The error for a synchronous resolve that would wait for `running`, an async resolve in
    /// its group (the two share a cycle).
    func requiresAsync(waitingFor running: ResolutionContext, in context: ResolutionContext)
        -> ResolutionError
    {
        let path = context.waitPath.isEmpty ? running.waitPath : context.waitPath
        return ResolutionError(
            kind: .requiresAsync, key: (path.last ?? Key(ResolutionContext.self, tag: nil)).serviceKey,
            path: path.map(\.serviceKey),
            suggestions: [
                "this resolve shares a cycle with an async resolve that is still running: resolve with try await resolveAsync(…) instead"
            ])
    }

    /// The error for a synchronous resolve that finds `key`'s instance being built by an
    /// async resolve.
    func requiresAsync(_ context: ResolutionContext, _ key: Key) -> ResolutionError {
        context.error(
            .requiresAsync, key,
            suggestions: [
                "an async resolve is building \(key.serviceKey) right now (its factory may be suspended): resolve it with try await resolveAsync(\(key.serviceKey.typeName).self), or build it first with bootstrapAsync()."
            ])
    }
}
