extension Container: Resolving, ResolutionEntryPoint {
    /// Resolves the instance registered for `type` and `tag`, starting the lookup here.
    ///
    /// Called from inside a factory on the same thread, it joins the resolve in progress
    /// (cycles are detected, `graph` instances shared); its lookup starts from this container.
    /// - Parameters:
    ///   - type: The service type.
    ///   - tag: The tag, or `nil` for the untagged registration (no fallback between them).
    /// - Returns: The instance.
    /// - Throws: `ResolutionError` about the deepest failure, with its path.
    @inlinable
    public func resolve<T>(_ type: T.Type = T.self, tag: ServiceTag? = nil) throws -> T {
        // The cached-read probe, inlined so that it is specialized for `T`: a published
        // instance of a memoized cached registration, read without a lock; otherwise the
        // memoized registration, for the general path.
        guard tag == nil, let read = beginCachedRead(ofType: T.self) else {
            return try resolveInContext(type, tag: tag)
        }
        if let cached = read.published(as: T.self) {
            read.end()
            return cached
        }
        // The typed fast path: a plain `unique` or `graph` registration (`FastConstruction`).
        if let entry = read.fastEntry(as: T.self) {
            if let value = try FastConstruction.construct(entry, from: self, on: read.thread) {
                return value
            }
            return try resolveInContext(type, memoized: MemoizedEntry(entry: entry))
        }
        return try resolveInContext(type, memoized: read.endTakingEntry())
    }

    /// Resolves `type` and `tag` in an async resolve (see `Resolving.resolveAsync(_:tag:)`):
    /// a published instance is read as `resolve` reads it, with no resolve to start.
    /// - Parameters:
    ///   - type: The service type; inferred when omitted.
    ///   - tag: The tag of the registration, or `nil`.
    ///   - isolation: The caller's actor, where the instance is returned.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`, or `CancellationError`.
    @inlinable
    public func resolveAsync<T>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws -> T {
        if tag == nil, let read = beginCachedRead(ofType: T.self) {
            if let cached = read.published(as: T.self) {
                read.end()
                return cached
            }
            // The typed fast path (`FastConstruction`): a plain `unique` or `graph`
            // registration cannot suspend, so it runs synchronously here.
            if let entry = read.fastEntry(as: T.self) {
                if let value = try FastConstruction.construct(entry, from: self, on: read.thread) {
                    return value
                }
            } else {
                read.end()
            }
        }
        var found: T?
        let outcome = try resolveWithoutSuspending(type, tag: tag, into: { found = $0 })
        if outcome == .delivered, let found { return found }
        return try await resolveAsyncInContext(type, tag: tag, waitFirst: outcome == .awaitBuild).value
    }

    /// The part of `resolveAsync`'s shortcut (`ResolutionContext.shortcut`) that needs no
    /// suspension, called without an async frame. Measured: leaving this call to
    /// `resolveAsyncValue`, whose unspecialized async code holds an optional `T`, made N 6,427
    /// instructions instead of 2,922.
    @usableFromInline
    func resolveWithoutSuspending<T>(_ type: T.Type, tag: ServiceTag?, into deliver: (T) -> Void) throws
        -> ShortcutOutcome
    {
        // A branch of an async factory's resolve takes the async path (see `runBranch`).
        if ResolutionContext.branchPointElsewhere != nil { return .resolveAsync }
        let key = Key(T.self, tag: tag)
        let startsResolve = ResolutionContext.taskContext?.isRunningInCurrentTask != true
        let decision = try ResolutionContext.shortcut(
            key, as: T.self, from: self, startsResolve: startsResolve, deliver: deliver)
        switch decision {
        case .delivered: return .delivered
        case .awaitBuild: return .awaitBuild
        case .resolveAsync: return .resolveAsync
        }
    }

    /// Everything but the cached-read probe and the shortcut of `resolveAsync`: waits for
    /// another resolve's build first when the shortcut found one (`waitFirst`: the shortcut
    /// is taken again for the slot), then resolves.
    @usableFromInline
    func resolveAsyncInContext<T>(_ type: T.Type, tag: ServiceTag?, waitFirst: Bool) async throws -> Carried<T> {
        let key = Key(T.self, tag: tag)
        guard waitFirst else { return try await resolveAsyncFully(key, as: type, arguments: nil) }
        return try await resolveAsyncValue(key, as: type, arguments: nil)
    }

    /// Everything but the cached-read probe: joins the resolve in progress on this thread or
    /// starts one.
    @usableFromInline
    func resolveInContext<T>(_ type: T.Type, tag: ServiceTag?) throws -> T {
        try ResolutionContext.resolve(Key(T.self, tag: tag), as: T.self, from: self, arguments: nil)
    }

    /// `resolveInContext` for the untagged key of `T`, with the registration the probe found
    /// memoized for it (no second lookup).
    @usableFromInline
    func resolveInContext<T>(_ type: T.Type, memoized: MemoizedEntry) throws -> T {
        try ResolutionContext.withContext {
            try $0.resolve(Key(T.self, tag: nil), as: T.self, from: self, arguments: nil, memoized: memoized.entry)
        }
    }

    /// Resolves the instance registered for `type`, `tag` and the argument types, passing the
    /// arguments to its factory.
    ///
    /// ```swift
    /// let session = try container.resolve(Session.self, tag: nil, arguments: 42, "token")
    /// ```
    /// - Parameters:
    ///   - type: The service type.
    ///   - tag: The tag, or `nil`.
    ///   - arguments: The runtime arguments; their static types are part of the key.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`; `.argumentMismatch` when only other argument types are registered.
    public func resolve<T, each A>(_ type: T.Type, tag: ServiceTag?, arguments: repeat each A) throws -> T {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        return try ResolutionContext.resolve(key, as: T.self, from: self, arguments: Arguments(repeat each arguments))
    }

    func resolveIfRegisteredValue<T>(_ key: Key, as type: T.Type) throws -> T? {
        try ResolutionContext.resolveIfRegistered(key, as: type, from: self)
    }

    func resolveAllValues<T>(_ type: T.Type) throws -> [T] {
        try ResolutionContext.resolveAll(type, from: self)
    }

    func resolveAsyncValue<T>(_ key: Key, as type: T.Type, arguments: Arguments?) async throws -> Carried<T> {
        // Inside an async factory (the same task), a resolve of this container joins it.
        let running = ResolutionContext.taskContext
        // A branch of an async factory's resolve takes the async path (see `runBranch`).
        if arguments == nil, ResolutionContext.branchPointElsewhere == nil {
            let startsResolve = running?.isRunningInCurrentTask != true
            var found: Carried<T>?
            shortcut: while true {
                let decision = try ResolutionContext.shortcut(
                    key, as: T.self, from: self, startsResolve: startsResolve, deliver: { found = Carried($0) })
                switch decision {
                case .delivered:
                    // Invariant: `.delivered` means `deliver` was called.
                    if let found { return found }
                    preconditionFailure("ScopeGraph: the shortcut delivered nothing")
                case .awaitBuild(let slot):
                    // Woken when that build ends: the published instance is read next time,
                    // or handed over (a weak slot's, which nothing else may hold by then).
                    switch await BuildCoordinator.shared.awaitBuild(of: slot) {
                    case .lookAgain: continue shortcut
                    case .notBuilding: break shortcut
                    // Checked: a slot of `T`'s registration publishes instances of `T`.
                    case .published(let instance): return Carried(instance.value as! T)
                    case .failed(let error): throw error
                    case .cancelled: throw CancellationError()
                    }
                case .resolveAsync:
                    break shortcut
                }
            }
        }
        return try await resolveAsyncFully(key, as: type, arguments: arguments)
    }

    /// The async resolve of a request, without the shortcut: it joins the async factory of
    /// this task that asks, if any, else starts a resolve.
    func resolveAsyncFully<T>(_ key: Key, as type: T.Type, arguments: Arguments?) async throws -> Carried<T> {
        try await ResolutionContext.withContextAsync(joining: ResolutionContext.taskContext) { context in
            Carried(try await context.resolveAsync(key, as: T.self, from: self, arguments: arguments))
        }
    }
}

/// What `resolveAsync`'s synchronous shortcut did (`Container.resolveWithoutSuspending`):
/// `ResolutionContext.ShortcutDecision` without its slot, for the inlinable `resolveAsync`
/// (this name is part of the binary interface: `.ci/check-api`).
@usableFromInline
enum ShortcutOutcome {
    /// The instance was handed to the caller.
    case delivered
    /// Another resolve is building the cached instance: wait for that build first.
    case awaitBuild
    /// The async path must run.
    case resolveAsync
}
