/// A registration of `T`: its factory, and for owner-rooted lifetimes the slot in its owner.
@usableFromInline
final class Entry<T>: AnyEntry, @unchecked Sendable {
    // @unchecked: see AnyEntry; the added properties are immutable.
    /// The factory, called for a resolve without runtime arguments. Stored as a closure, not
    /// as a `Factory<T>`: generic code that is not specialized for `T` would look up the
    /// enum's metadata at every call.
    @usableFromInline let callPlain: @Sendable (Resolver) throws -> T
    /// The factory of a registration with runtime arguments; `nil` for most.
    private let argumentFactory: ArgumentFactory<T>?
    /// The factory of an async registration; `nil` for the others.
    let asyncFactory: AsyncFactory<T>?
    /// The factory of a main-actor registration; `nil` for the others.
    let mainActorFactory: MainActorFactory<T>?
    /// The owner's cache slot, for `singleton`, `weakSingleton` and `eagerSingleton`.
    let slot: Slot<T>?
    /// `Slot<T>` and `StrongBox<T>` for a cached lifetime, looked up once here: unspecialized
    /// generic code that names them pays a runtime metadata lookup at every use, and a
    /// `perContainer` registration makes a slot (and a box) for every container it is
    /// resolved in. `nil` for `unique` and `graph`, which never cache.
    private let slotTypes: (slot: Slot<T>.Type, box: StrongBox<T>.Type)?

    init(key: Key, lifetime: Lifetime, owner: Container, factory: Factory<T>) {
        let retirement = Retirement()
        switch factory {
        case .plain(let body):
            (callPlain, argumentFactory, asyncFactory, mainActorFactory) = (body, nil, nil, nil)
        case .withArguments(let body):
            callPlain = { resolver in try body(resolver, Arguments()) }
            (argumentFactory, asyncFactory, mainActorFactory) = (ArgumentFactory(body), nil, nil)
        case .async(let body):
            // Never called: a synchronous resolve checks the kind first (`construct`).
            callPlain = { _ in preconditionFailure("ScopeGraph: an async factory called synchronously") }
            (argumentFactory, asyncFactory, mainActorFactory) = (nil, AsyncFactory(body), nil)
        case .mainActor(let body):
            callPlain = { _ in preconditionFailure("ScopeGraph: a main-actor factory called without its check") }
            (argumentFactory, asyncFactory, mainActorFactory) = (nil, nil, MainActorFactory(body))
        }
        if lifetime == .unique || lifetime == .graph {
            slotTypes = nil
        } else {
            slotTypes = (Slot<T>.self, StrongBox<T>.self)
        }
        if let slotTypes, lifetime.isOwnerRooted {
            slot = slotTypes.slot.init(
                weak: lifetime == .weakSingleton, retirement: retirement, logOwner: owner, boxType: slotTypes.box)
        } else {
            slot = nil
        }
        super.init(key: key, lifetime: lifetime, owner: owner, retirement: retirement, kind: factory.kind)
    }

    override var ownerSlot: AnySlot? { slot }

    /// Calls the factory; `arguments` is `nil` for a resolve without runtime arguments.
    func make(_ resolver: Resolver, _ arguments: Arguments?) throws -> T {
        guard let argumentFactory, let arguments else { return try callPlain(resolver) }
        return try argumentFactory.body(resolver, arguments)
    }

    override func makeSlot(in logOwner: any ShutdownLogOwner) -> AnySlot {
        // Invariant: only cached lifetimes make slots (`cacheLocation`), and they have types.
        guard let slotTypes else { preconditionFailure("ScopeGraph: a slot made for a \(lifetime) registration") }
        return slotTypes.slot.init(
            weak: lifetime == .weakSingleton, retirement: retirement, logOwner: logOwner, boxType: slotTypes.box)
    }

    func addBlock(_ block: @escaping @Sendable (Resolver, T) throws -> Void) {
        addErasedBlock { resolver, instance in
            // Checked: blocks are only ever called with an instance this entry's factory made.
            try block(resolver, instance as! T)
        }
    }

    override func cacheSlot(for request: Request, in context: ResolutionContext) -> AnySlot? {
        guard lifetime != .unique, lifetime != .graph else { return nil }
        return try? context.cacheLocation(of: self, for: request).slot
    }

    override func produce<R>(_ request: Request, as type: R.Type, in context: ResolutionContext) throws -> R {
        let value = try context.instance(of: self, for: request)
        // The usual request asks for the registered type itself: no dynamic cast.
        // Sound: the metatypes are equal (checked here), so this is the identity.
        if R.self == T.self { return unsafeBitCast(value, to: R.self) }
        return try cast(value, to: R.self, request, in: context)
    }

    /// A forwarded type's instance. Apart from `produce`, whose generic code would otherwise
    /// look up `Optional<R>`'s metadata on every resolve.
    @inline(never)
    private func cast<R>(_ value: T, to type: R.Type, _ request: Request, in context: ResolutionContext) throws -> R {
        if let forwarded = value as? R { return forwarded }
        throw context.typeMismatch(self, produced: value, request)
    }

    override func produceAny(_ request: Request, in context: ResolutionContext) throws -> Any {
        try context.instance(of: self, for: request)
    }

    override func produceAsync<R>(_ request: Request, as type: R.Type, in context: ResolutionContext) async throws
        -> R
    {
        let value = try await context.instanceAsync(of: self, for: request)
        // Sound: the metatypes are equal (checked here), so this is the identity.
        if R.self == T.self { return unsafeBitCast(value, to: R.self) }
        return try cast(value, to: R.self, request, in: context)
    }

    override func produceAnyAsync(_ request: Request, in context: ResolutionContext) async throws -> Any {
        try await context.instanceAsync(of: self, for: request)
    }
}

/// The factory of a registration with runtime arguments, boxed so that an entry without
/// arguments spends one word on it (a class reference needs no generic metadata).
final class ArgumentFactory<T>: Sendable {
    let body: @Sendable (Resolver, Arguments) throws -> T
    init(_ body: @escaping @Sendable (Resolver, Arguments) throws -> T) { self.body = body }
}

/// The factory of an async registration.
final class AsyncFactory<T>: Sendable {
    let body: @Sendable (Resolver, Arguments?) async throws -> T
    init(_ body: @escaping @Sendable (Resolver, Arguments?) async throws -> T) { self.body = body }
}

/// The factory of a main-actor registration.
final class MainActorFactory<T>: Sendable {
    let body: @MainActor @Sendable (Resolver, Arguments?) throws -> T
    init(_ body: @escaping @MainActor @Sendable (Resolver, Arguments?) throws -> T) { self.body = body }
}
