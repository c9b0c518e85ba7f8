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
        try resolveRequest(type, tag: tag)
    }

    /// A request whose lookup starts here, from a top-level resolve or a factory's resolver.
    ///
    /// Inlined into the caller and specialized for `T`, so the common requests need no
    /// generic machinery: an instance already published for a memoized lookup (no lock, no
    /// allocation, no dynamic cast), a new `unique` or `graph` instance of a memoized
    /// registration (the factory called directly, with the same bookkeeping as every
    /// construction), and the `graph` instance this resolve already holds; with or without a
    /// tag (not with runtime arguments). One probe of the memo tells which; everything else
    /// takes the general path.
    @inlinable
    func resolveRequest<T>(_ type: T.Type, tag: ServiceTag?) throws -> T {
        let path =
            if let tag { beginFastPath(ofType: T.self, tag: tag) } else { beginFastPath(ofType: T.self) }
        switch path {
        case .cached(let read):
            let cached = read.slot._withUnsafeGuaranteedRef { unsafeDowncast($0, to: Slot<T>.self).readPublished() }
            read.end()
            if let cached { return cached }
        case .construct(let construction):
            if let function = construction.plainFunction {
                return try constructPlain(construction, function, as: T.self)
            }
            let value: T
            do {
                // The construction holds the entry: no reference counting around the call.
                value = try Unmanaged<Entry<T>>.fromOpaque(construction.held.unsafelyUnwrapped)
                    ._withUnsafeGuaranteedRef { try $0.makeWithoutArguments(Resolver(container: self)) }
            } catch {
                throw failUncachedConstruction(construction, error)
            }
            if construction.isGraph {
                try finishUncachedConstruction(construction, value, graphBox: StrongBox(value))
            } else {
                try finishUncachedConstruction(construction, value, graphBox: nil)
            }
            return value
        case .shared(let box):
            // The entry answered for `T` as its own type, so its box is a `StrongBox<T>`.
            return Unmanaged<StrongBox<T>>.fromOpaque(box.toOpaque())._withUnsafeGuaranteedRef { $0.value }
        case .found(let entry):
            return try resolveFound(entry, as: type)
        case .general:
            break
        }
        return try resolveInContext(type, tag: tag)
    }

    /// Builds a new instance from a record (its first lookup; see PlainRegistration.swift). Specialized for
    /// `T` in the caller's module, but not inlined: `resolveRequest` is inlined into every
    /// resolve, and this case, taken once per registration, would make it too large to be.
    @inlinable @inline(never)
    func constructPlain<T>(_ construction: UncachedConstruction, _ function: UnsafeRawPointer, as type: T.Type)
        throws -> T
    {
        let value: T
        do {
            value = try construction.plainFactory(of: T.self, function: function).body(Resolver(container: self))
        } catch {
            throw failUncachedConstruction(construction, error)
        }
        try finishPlainConstruction(construction, value)
        return value
    }

    /// The general path for the registration the memo found for `T`'s own key (retained;
    /// released here).
    @usableFromInline
    func resolveFound<T>(_ entry: Unmanaged<AnyEntry>, as type: T.Type) throws -> T {
        try ResolutionContext.resolve(found: entry.takeRetainedValue(), as: T.self, from: self)
    }

    /// Everything but the fast path: joins the resolve in progress on this thread or starts one.
    @usableFromInline
    func resolveInContext<T>(_ type: T.Type, tag: ServiceTag?) throws -> T {
        try ResolutionContext.resolve(Key(T.self, tag: tag), as: T.self, from: self, arguments: nil)
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
}
