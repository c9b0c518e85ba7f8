/// A registration of `T`: its factory, and for owner-rooted lifetimes the slot in its owner.
final class Entry<T>: AnyEntry, @unchecked Sendable {
    // @unchecked: see AnyEntry; the added properties are immutable.
    let factory: Factory<T>
    /// The owner's cache slot, for `singleton`, `weakSingleton` and `eagerSingleton`.
    let slot: Slot<T>?

    init(key: Key, lifetime: Lifetime, owner: Container, factory: Factory<T>) {
        let retirement = Retirement()
        self.factory = factory
        self.slot = lifetime.isOwnerRooted ? Slot<T>(weak: lifetime == .weakSingleton, retirement: retirement) : nil
        super.init(key: key, lifetime: lifetime, owner: owner, retirement: retirement)
    }

    override var ownerSlot: AnySlot? { slot }

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
        if let forwarded = value as? R { return forwarded }
        throw context.typeMismatch(self, produced: value, request)
    }

    override func produceAny(_ request: Request, in context: ResolutionContext) throws -> Any {
        try context.instance(of: self, for: request)
    }
}
