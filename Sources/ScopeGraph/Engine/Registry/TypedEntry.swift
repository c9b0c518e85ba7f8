/// A registration of `T`: its factory, and for owner-rooted lifetimes the slot in its owner.
final class Entry<T>: AnyEntry, @unchecked Sendable {
    // @unchecked: see AnyEntry; the added properties are immutable.
    /// The factory, called for a resolve without runtime arguments. Stored as a closure, not
    /// as a `Factory<T>`: generic code that is not specialized for `T` would look up the
    /// enum's metadata at every call.
    private let callPlain: @Sendable (Resolver) throws -> T
    /// The factory of a registration with runtime arguments; `nil` for most.
    private let argumentFactory: ArgumentFactory<T>?
    /// The owner's cache slot, for `singleton`, `weakSingleton` and `eagerSingleton`.
    let slot: Slot<T>?

    init(key: Key, lifetime: Lifetime, owner: Container, factory: Factory<T>) {
        let retirement = Retirement()
        switch factory {
        case .plain(let body):
            callPlain = body
            argumentFactory = nil
        case .withArguments(let body):
            callPlain = { resolver in try body(resolver, Arguments()) }
            argumentFactory = ArgumentFactory(body)
        }
        self.slot = lifetime.isOwnerRooted ? Slot<T>(weak: lifetime == .weakSingleton, retirement: retirement) : nil
        super.init(key: key, lifetime: lifetime, owner: owner, retirement: retirement)
    }

    override var ownerSlot: AnySlot? { slot }

    /// Calls the factory; `arguments` is `nil` for a resolve without runtime arguments.
    func make(_ resolver: Resolver, _ arguments: Arguments?) throws -> T {
        guard let argumentFactory, let arguments else { return try callPlain(resolver) }
        return try argumentFactory.body(resolver, arguments)
    }

    override func makeSlot() -> AnySlot { Slot<T>(weak: lifetime == .weakSingleton, retirement: retirement) }

    func addBlock(_ block: @escaping @Sendable (Resolver, T) throws -> Void) {
        addErasedBlock { resolver, instance in
            // Checked: blocks are only ever called with an instance this entry's factory made.
            try block(resolver, instance as! T)
        }
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
}

/// The factory of a registration with runtime arguments, boxed so that an entry without
/// arguments spends one word on it (a class reference needs no generic metadata).
final class ArgumentFactory<T>: Sendable {
    let body: @Sendable (Resolver, Arguments) throws -> T
    init(_ body: @escaping @Sendable (Resolver, Arguments) throws -> T) { self.body = body }
}
