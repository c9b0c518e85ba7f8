extension Container: ShutdownLogOwner {
    var shutDownName: String? { isShutDown ? name : nil }

    /// True from the moment `shutdown()` of this container or of an ancestor begins: resolves
    /// from it then throw `ResolutionError` of kind `.containerShutDown`.
    public var isShutDown: Bool {
        // Walked without reference counting (see `parentReference`): an ancestor's flag is
        // read here, so a descendant is shut down from the very moment its ancestor is, and a
        // child made later is too.
        var current = Unmanaged.passUnretained(self)
        while true {
            let next = current._withUnsafeGuaranteedRef { container -> Unmanaged<Container>?? in
                container.shutDownFlag.load(ordering: .sequentiallyConsistent) ? nil : .some(container.parentReference)
            }
            guard let next else { return true }
            guard let parent = next else { return false }
            current = parent
        }
    }

    /// Shuts this container down: its live descendants first (the most recently created child
    /// first), then the `onShutdown` hooks of the instances cached here (singleton, eager
    /// singleton, weak singleton still alive, `perContainer`), newest first, so an instance is
    /// closed before the instances it was built from.
    ///
    /// ```swift
    /// try await app.shutdown()   // closes the request scopes still open, then the pool
    /// ```
    ///
    /// Each hook runs once per instance, however many callers: every call (concurrent or
    /// later) returns after the one shutdown has finished, with its one outcome. From the
    /// moment it begins, resolving from this container or a descendant, or reaching it through
    /// a collaboration link, throws `.containerShutDown`; a resolve that raced with it either
    /// finished before (and its instances are shut down) or fails. A container dropped without
    /// `shutdown()` frees its instances without running hooks.
    /// - Throws: `ShutdownError` listing every hook that threw, after running all of them.
    public func shutdown() async throws {
        if let error = await runShutdownOnce().outcome { throw error }
    }

    /// Makes a child, runs `body` with it, and shuts the child down when `body` returns or
    /// throws: a request's scope in a server, a screen's scope in an app.
    ///
    /// ```swift
    /// let response = try await app.withScope(name: "request") { request in
    ///     try await request.resolveAsync(RequestHandler.self).handle(input)
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The child's name.
    ///   - isolation: The caller's actor, where `body` runs (the main actor for a screen).
    ///   - body: The work to do with the child.
    /// - Returns: What `body` returned.
    /// - Throws: `body`'s error if only it failed; the `ShutdownError` if only the shutdown
    ///   failed; a `ScopeError` carrying both if both did.
    public func withScope<R>(
        name: String, isolation: isolated (any Actor)? = #isolation, _ body: (Container) async throws -> R
    ) async throws -> R {
        let scope = makeChild(name: name)
        // `shutdown()`'s work (`runShutdownOnce`) is called in this isolation: no hop to the
        // generic executor and back. No `Result<R, _>`, `R?` or tuple holding `R` either: in
        // this unspecialized function each would look its type metadata up at every call.
        let value: R
        do {
            value = try await body(scope)
        } catch {
            guard let shutdownError = await scope.runShutdownOnce().outcome else { throw error }
            throw ScopeError(bodyError: error, shutdownError: shutdownError)
        }
        if let shutdownError = await scope.runShutdownOnce().outcome { throw shutdownError }
        return value
    }

    /// The log of this container's cached instances with hooks, made on first use.
    var shutdownLog: ShutdownLog {
        if let log = lazyShutdownLog.load() { return log }
        return lazyShutdownLog.storeIfNil(ShutdownLog())
    }

    /// Marks this container shut down (and so its descendants, see `isShutDown`) and closes
    /// its log (its records come back, to close once the descendants are), under the log's
    /// lock, which every publication of an instance with hooks here takes too: it comes
    /// either before (the instance is recorded, and closed by this shutdown) or after (the
    /// resolve fails). A descendant's publication that read no flag yet is recorded in the
    /// descendant's log, which the descendant's shutdown, begun by this one, closes. No lock
    /// shared by all containers is taken. Then makes every container whose lookups may reach
    /// these forget them.
    func beginShutdown() -> [ShutdownLog.Record] {
        let records = shutdownLog.close { shutDownFlag.store(true, ordering: .sequentiallyConsistent) }
        invalidateLookups()
        return records
    }

    /// Shuts the live descendants down, then runs the hooks of `records`, then records the
    /// failures of the hooks this shutdown ran as the outcome. A child whose shutdown another
    /// call began (earlier, or meanwhile) is waited for; its failures are that call's outcome.
    nonisolated(nonsending) func finishShutdown(_ records: [ShutdownLog.Record]) async {
        var failures: [ShutdownError.Failure] = []
        for child in children.reversed() {
            let (outcome, started) = await child.runShutdownOnce()
            if started, let outcome { failures += outcome.failures }
        }
        failures += await Self.runHooks(of: records, in: name)
        publishShutdownOutcome(failures.isEmpty ? nil : ShutdownError(failures: failures))
    }

    /// Runs the hooks of the instances `records` still cache, in order; the hooks that threw.
    nonisolated(nonsending) static func runHooks(
        of records: [ShutdownLog.Record], in container: String
    ) async -> [ShutdownError.Failure] {
        var failures: [ShutdownError.Failure] = []
        for record in records {
            guard let box = record.liveBox else { continue }
            for hook in record.entry.shutdownHooks {
                do {
                    try await hook(box)
                } catch {
                    failures.append(
                        ShutdownError.Failure(key: record.entry.key.serviceKey, container: container, error: error))
                }
            }
        }
        return failures
    }

    /// What to do about `.containerShutDown`.
    static func shutDownRemedy(_ name: String) -> String {
        "the container '\(name)' has been shut down (its shutdown() began); resolve from a container that is still running, or make a new scope with withScope(name:_:)"
    }
}
