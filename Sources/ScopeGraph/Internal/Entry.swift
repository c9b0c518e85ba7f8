import Synchronization

/// A registration as the container stores it: key, lifetime, factory, owner, blocks.
@usableFromInline
package class AnyEntry: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init, except `forwards` and the
    // blocks of the subclass, which are guarded by `lock`; `owner` is a weak reference written
    // only in init (weak loads are thread-safe in the Swift runtime).
    let key: Key
    let lifetime: Lifetime
    weak var owner: Container?
    let ownerName: String
    private let extras = Locked(Extras())
    private struct Extras {
        var forwardKeys: [Key] = []
        var blocks: [@Sendable (Resolver, Any) throws -> Void] = []
    }
    /// How many `onResolved` blocks there are, readable without the lock.
    private let blockCount = Atomic<Int>(0)

    /// Set once the registration is removed or replaced: its slots then refuse instances.
    let retirement: Retirement

    init(key: Key, lifetime: Lifetime, owner: Container, retirement: Retirement) {
        self.retirement = retirement
        self.key = key
        self.lifetime = lifetime
        self.owner = owner
        self.ownerName = owner.name
    }

    /// The registered type (the `T` of `register`).
    var valueType: Any.Type { key.type }

    var forwards: [Key] { extras.withLock { $0.forwardKeys } }

    func addErasedBlock(_ block: @escaping @Sendable (Resolver, Any) throws -> Void) {
        extras.withLock { extras in
            extras.blocks.append(block)
            blockCount.store(extras.blocks.count, ordering: .releasing)
        }
    }

    /// The `onResolved` blocks, in the order added; empty without taking the lock when none.
    /// True once an `onResolved` block was added; no lock, no array.
    var hasOnResolvedBlocks: Bool { blockCount.load(ordering: .acquiring) != 0 }

    var onResolvedBlocks: [@Sendable (Resolver, Any) throws -> Void] {
        blockCount.load(ordering: .acquiring) == 0 ? [] : extras.withLock { $0.blocks }
    }
    func addForward(_ key: Key) {
        extras.withLock { extras in if !extras.forwardKeys.contains(key) { extras.forwardKeys.append(key) } }
    }

    /// The slot of an owner-rooted lifetime, in the owner; `nil` for the other lifetimes.
    var ownerSlot: AnySlot? { nil }
    /// A fresh, empty slot of the right type, for `perContainer` caches and override scopes.
    func makeSlot() -> AnySlot { fatalError("AnyEntry is abstract: use Entry<T>") }

    /// Produces the instance for a request and casts it to the requested type.
    func produce<R>(_ request: Request, as type: R.Type, in context: ResolutionContext) throws -> R {
        fatalError("AnyEntry is abstract: use Entry<T>")
    }

    /// Produces the instance for a request, erased.
    func produceAny(_ request: Request, in context: ResolutionContext) throws -> Any {
        fatalError("AnyEntry is abstract: use Entry<T>")
    }
}

/// What one resolve asks of an entry.
struct Request {
    /// The key as requested (a forwarded type, or the entry's own key).
    let key: Key
    /// The container the request's lookup started from.
    let start: Container
    /// Runtime arguments, when the key has argument types.
    let arguments: Arguments?
}

/// How a factory is called.
@usableFromInline
package enum Factory<T>: Sendable {
    case plain(@Sendable (Resolver) throws -> T)
    case withArguments(@Sendable (Resolver, Arguments) throws -> T)
}

@usableFromInline
final class Entry<T>: AnyEntry, @unchecked Sendable {
    // @unchecked: see AnyEntry.
    @usableFromInline let factory: Factory<T>
    let slot: Slot<T>?
    /// The metatypes of this entry's slots and boxes, looked up once here: generic code that
    /// is not specialized would otherwise look them up (a hash-table probe) for every slot.
    private let slotType: Slot<T>.Type
    private let boxType: StrongBox<T>.Type

    init(key: Key, lifetime: Lifetime, owner: Container, factory: Factory<T>) {
        self.factory = factory
        let retirement = Retirement()
        slotType = Slot<T>.self
        boxType = StrongBox<T>.self
        self.slot =
            lifetime.isOwnerRooted
            ? slotType.init(weak: lifetime == .weakSingleton, retirement: retirement, boxType: boxType) : nil
        super.init(key: key, lifetime: lifetime, owner: owner, retirement: retirement)
    }

    /// `value` in a `StrongBox<T>`, made without looking up the box type's metadata.
    func makeBox(_ value: T) -> AnyObject { boxType.init(value) }

    override var ownerSlot: AnySlot? { slot }
    override func makeSlot() -> AnySlot {
        slotType.init(weak: lifetime == .weakSingleton, retirement: retirement, boxType: boxType)
    }

    func addBlock(_ block: @escaping @Sendable (Resolver, T) throws -> Void) {
        addErasedBlock { resolver, instance in try block(resolver, instance as! T) }
    }

    override func produce<R>(_ request: Request, as type: R.Type, in context: ResolutionContext) throws -> R {
        let value = try instance(request, in: context)
        if R.self == T.self { return unsafeBitCast(value, to: R.self) }
        if let cast = value as? R { return cast }
        throw context.error(.typeMismatch, request.key, searched: [])
    }

    override func produceAny(_ request: Request, in context: ResolutionContext) throws -> Any {
        try instance(request, in: context)
    }

    func instance(_ request: Request, in context: ResolutionContext) throws -> T {
        switch lifetime {
        case .unique:
            return try context.uniqueInstance(self, request)
        case .graph:
            return try context.graphInstance(self, request)
        case .singleton, .weakSingleton, .eagerSingleton:
            guard let owner else { throw context.ownerGoneError(self, request) }
            // No `Optional.map` here: generic over `Slot<T>`, it would look up its metadata.
            let slot: Slot<T>
            if let scope = context.cacheScope {
                slot = typed(scope.slot(for: self, in: owner))
            } else {
                slot = self.slot!
            }
            return try context.cachedInstance(self, slot: slot, request, root: owner)
        case .perContainer:
            let start = request.start
            let erased = context.cacheScope?.slot(for: self, in: start) ?? start.erasedPerContainerSlot(for: self)
            return try context.cachedInstance(self, slot: typed(erased), request, root: start)
        }
    }

    /// One of this entry's slots, typed. Not `unsafeDowncast(_:to: Slot<T>.self)`: naming the
    /// metatype in unspecialized code looks up its metadata.
    @inline(__always)
    private func typed(_ slot: AnySlot) -> Slot<T> {
        Unmanaged<Slot<T>>.fromOpaque(Unmanaged.passUnretained(slot).toOpaque()).takeUnretainedValue()
    }

    /// Calls the factory of an argument-free key (the inlined path: no `Arguments?` to
    /// copy or destroy).
    @inlinable
    func makeWithoutArguments(_ resolver: Resolver) throws -> T {
        switch factory {
        case .plain(let body): return try body(resolver)
        case .withArguments(let body): return try body(resolver, Arguments())
        }
    }

    /// Calls the factory.
    @inlinable
    func make(_ resolver: Resolver, _ arguments: Arguments?) throws -> T {
        switch factory {
        case .plain(let body): return try body(resolver)
        case .withArguments(let body): return try body(resolver, arguments!)
        }
    }
}
