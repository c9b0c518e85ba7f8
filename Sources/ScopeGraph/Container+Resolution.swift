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
    public func resolve<T>(_ type: T.Type, tag: ServiceTag?) throws -> T {
        let key = Key(T.self, tag: tag)
        if ResolutionContext.current == nil, !ScopeActivity.mayBeActive, let cached: T = publishedInstance(for: key) {
            return cached
        }
        return try ResolutionContext.resolve(key, as: T.self, from: self, arguments: nil)
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

    /// The fast path: an instance already published for a memoized lookup, with no lock shared
    /// by other containers, no allocation and no dynamic cast.
    @inline(__always)
    private func publishedInstance<T>(for key: Key) -> T? {
        guard let entry = memoizedLookup(key), entry.valueType == T.self else { return nil }
        let typed = unsafeDowncast(entry, to: Entry<T>.self)
        switch typed.lifetime {
        case .singleton, .eagerSingleton, .weakSingleton:
            return typed.slot?.published()
        case .perContainer:
            let slot = state.withLock { $0.perContainer[ObjectIdentifier(typed)] }
            return slot.flatMap { unsafeDowncast($0, to: Slot<T>.self).published() }
        case .unique, .graph:
            return nil
        }
    }
}
