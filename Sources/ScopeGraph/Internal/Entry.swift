import Synchronization

/// A registration as the container stores it: key, lifetime, factory, owner, blocks.
@usableFromInline
package class AnyEntry: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init, except the atomics;
    // forwarded keys and blocks live in `Extras`, behind its own lock.
    //
    // The fields are in this order so that an entry fits in 128 bytes (one small allocation)
    // and a resolve reads key, lifetime and factory from its first two cache lines.
    let key: Key
    let lifetime: Lifetime
    /// Set by the first lookup this entry answered from its own container (see
    /// `Container.lookup`).
    private let lookedUp = Atomic<Bool>(false)
    /// How many `onResolved` blocks there are, readable without the lock.
    private let blockCount = Atomic<UInt32>(0)
    /// The owning container (weakly) and its name, shared with its other registrations.
    private let ownerLink: OwnerLink
    /// Forwarded keys and `onResolved` blocks: a retained `Locked<Extras>` as bits, created by
    /// the first `implements` or `onResolved` and then kept until deinit; 0 while there is none,
    /// so a plain registration allocates no lock.
    private let extrasBits = Atomic<Int>(0)
    private struct Extras {
        var forwardKeys: [Key] = []
        var blocks: [@Sendable (Resolver, Any) throws -> Void] = []
    }
    /// The `Retirement` shared with the slots, created on first use (retained, as bits), or,
    /// while there is none, whether the registration is retired: 0 live, 1 retired.
    private let retirementBits = Atomic<Int>(0)
    /// What this registration is told apart by while it is being built (cycle detection): its
    /// address, or the identity of the record it was made from, which a construction from that
    /// record may be using (see PlainRegistration.swift). Written by `init` only.
    private(set) var identity: UInt = 0

    init(
        key: Key, lifetime: Lifetime, owner: borrowing Container, retirement: Retirement? = nil,
        from plain: Container.Registered? = nil
    ) {
        self.key = key
        self.lifetime = lifetime
        self.ownerLink = owner.ownerLink
        if let retirement { retirementBits.store(Self.bits(of: retirement), ordering: .relaxed) }
        if let plain {
            identity = plain.plainIdentity
            if plain.lookedUp { lookedUp.store(true, ordering: .relaxed) }
        } else {
            identity = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(self)))
        }
    }

    /// The entry for `plain`, a record of this entry type stored under `key` in `owner`.
    class func materialize(_ plain: Container.Registered, key: Key, owner: borrowing Container) -> AnyEntry {
        fatalError("AnyEntry is abstract: use Entry<T>")
    }

    /// The container that owns this registration, or `nil` once it is deallocated.
    var owner: Container? { ownerLink.container }
    /// The owning container's name, known after it is deallocated too.
    var ownerName: String { ownerLink.name }

    deinit {
        let extras = extrasBits.load(ordering: .acquiring)
        if extras != 0 { Unmanaged<Locked<Extras>>.fromOpaque(UnsafeRawPointer(bitPattern: extras)!).release() }
        let retirement = retirementBits.load(ordering: .acquiring)
        if retirement > 1 { Unmanaged<Retirement>.fromOpaque(UnsafeRawPointer(bitPattern: retirement)!).release() }
    }

    /// The registered type (the `T` of `register`).
    var valueType: Any.Type { key.type }

    var forwards: [Key] { existingExtras?.withLock { $0.forwardKeys } ?? [] }

    func addErasedBlock(_ block: @escaping @Sendable (Resolver, Any) throws -> Void) {
        extras.withLock { extras in
            extras.blocks.append(block)
            blockCount.store(UInt32(extras.blocks.count), ordering: .releasing)
        }
        noteBlocksChanged()
    }

    /// Tells constructions from the record this entry was made from, if any, that its blocks
    /// changed (see `Container.recordBlocks`).
    private func noteBlocksChanged() {
        if identity & 1 != 0 { Container.recordBlocks.add(1, ordering: .releasing) }
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

    /// Forgets a forwarded key that another registration has taken over.
    func removeForward(_ key: Key) {
        existingExtras?.withLock { extras in extras.forwardKeys.removeAll { $0 == key } }
    }

    /// The forwarded keys and `onResolved` blocks as they are now, for a snapshot.
    var capturedExtras: CapturedExtras {
        guard let existing = existingExtras else { return CapturedExtras(forwardKeys: [], blocks: []) }
        return existing.withLock { CapturedExtras(forwardKeys: $0.forwardKeys, blocks: $0.blocks) }
    }

    /// Puts back the forwarded keys and blocks a snapshot captured: `implements` and
    /// `onResolved` calls made since are undone.
    func restoreExtras(_ captured: CapturedExtras) {
        if captured.forwardKeys.isEmpty, captured.blocks.isEmpty, existingExtras == nil { return }
        // The blocks undone come back to be released here, after the lock: one may hold the
        // last reference to an object whose deinit resolves this registration.
        _ = extras.withLock { extras -> Extras in
            let undone = extras
            extras.forwardKeys = captured.forwardKeys
            extras.blocks = captured.blocks
            blockCount.store(UInt32(extras.blocks.count), ordering: .releasing)
            return undone
        }
        noteBlocksChanged()
    }

    /// What `capturedExtras` returns and `restoreExtras` takes.
    struct CapturedExtras {
        let forwardKeys: [Key]
        let blocks: [@Sendable (Resolver, Any) throws -> Void]
    }

    /// The extras, when `implements` or `onResolved` created them.
    private var existingExtras: Locked<Extras>? {
        let bits = extrasBits.load(ordering: .acquiring)
        return bits == 0 ? nil : Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// The extras, created on first use (once: a thread that loses the race drops its own).
    private var extras: Locked<Extras> {
        if let existing = existingExtras { return existing }
        let made = Locked(Extras())
        let bits = Self.bits(of: made)
        let (exchanged, current) = extrasBits.compareExchange(
            expected: 0, desired: bits, ordering: .acquiringAndReleasing)
        if exchanged { return made }
        Unmanaged.passUnretained(made).release()
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue()
    }

    /// Shared by this registration and all its slots; created on first use, retired already
    /// when the registration was retired before.
    var retirement: Retirement {
        while true {
            let current = retirementBits.load(ordering: .sequentiallyConsistent)
            if current > 1 { return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue() }
            let made = Retirement()
            if current == 1 { made.retire() }
            let bits = Self.bits(of: made)
            if retirementBits.compareExchange(expected: current, desired: bits, ordering: .sequentiallyConsistent)
                .exchanged
            {
                return made
            }
            Unmanaged.passUnretained(made).release()
        }
    }

    /// Marks the registration removed or replaced: its slots then refuse instances.
    func retire() { setRetired(true) }

    /// Brings a retired registration back (a restored snapshot holds it).
    func reinstate() { setRetired(false) }

    private func setRetired(_ retired: Bool) {
        while true {
            let current = retirementBits.load(ordering: .sequentiallyConsistent)
            if current > 1 {
                let retirement = Unmanaged<Retirement>.fromOpaque(UnsafeRawPointer(bitPattern: current)!)
                retirement._withUnsafeGuaranteedRef { retired ? $0.retire() : $0.reinstate() }
                return
            }
            let desired = retired ? 1 : 0
            if retirementBits.compareExchange(expected: current, desired: desired, ordering: .sequentiallyConsistent)
                .exchanged
            {
                return
            }
        }
    }

    /// Records a lookup this entry answered from its own container; true when one was recorded
    /// before (the key is then worth memoizing).
    func noteLookedUp() -> Bool {
        // Called with the container's lock held: a plain store suffices (at worst, a lookup
        // through another container holding this entry memoizes it one lookup later).
        if lookedUp.load(ordering: .relaxed) { return true }
        lookedUp.store(true, ordering: .relaxed)
        return false
    }

    /// A retained object as bits, for the atomics above.
    private static func bits(of object: AnyObject) -> Int {
        Int(bitPattern: Unmanaged.passRetained(object).toOpaque())
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

/// The factory of a registration with runtime arguments, boxed so that a plain entry spends one
/// word on it.
@usableFromInline
final class ArgumentFactory<T>: Sendable {
    @usableFromInline let body: @Sendable (Resolver, Arguments) throws -> T
    init(_ body: @escaping @Sendable (Resolver, Arguments) throws -> T) { self.body = body }
}

@usableFromInline
final class Entry<T>: AnyEntry, @unchecked Sendable {
    // @unchecked: see AnyEntry.
    /// The factory as called for an argument-free key (the inlined path).
    @usableFromInline let callWithoutArguments: @Sendable (Resolver) throws -> T
    /// The factory of a registration with runtime arguments; `nil` for a plain one (most), so
    /// that a plain entry stores its factory once.
    @usableFromInline let argumentFactory: ArgumentFactory<T>?
    let slot: Slot<T>?
    /// The metatypes of this entry's slots and boxes, looked up once here (not for `unique`,
    /// which never needs them): generic code that is not specialized would otherwise look
    /// them up (a hash-table probe) for every slot and box.
    private let slotType: Slot<T>.Type?
    private let boxType: StrongBox<T>.Type?

    /// An entry for `T` and `tag`, without argument types (what the inlined `register` makes).
    /// Takes the factory itself, not a `Factory<T>`: unspecialized generic code would copy and
    /// destroy the enum through its value witnesses.
    @usableFromInline
    convenience init(
        tag: ServiceTag?, lifetime: Lifetime, owner: borrowing Container,
        factory: @escaping @Sendable (Resolver) throws -> T
    ) {
        self.init(key: Key(T.self, tag: tag), lifetime: lifetime, owner: owner, call: factory, argumentFactory: nil)
    }

    convenience init(key: Key, lifetime: Lifetime, owner: borrowing Container, factory: Factory<T>) {
        switch factory {
        case .plain(let body):
            self.init(key: key, lifetime: lifetime, owner: owner, call: body, argumentFactory: nil)
        case .withArguments(let body):
            self.init(
                key: key, lifetime: lifetime, owner: owner, call: { resolver in try body(resolver, Arguments()) },
                argumentFactory: ArgumentFactory(body))
        }
    }

    override class func materialize(_ plain: Container.Registered, key: Key, owner: borrowing Container) -> AnyEntry {
        Entry(
            key: key, lifetime: .unique, owner: owner, call: FactoryBox<T>(plain.plainFactory).body,
            argumentFactory: nil, from: plain)
    }

    private init(
        key: Key, lifetime: Lifetime, owner: borrowing Container,
        call: @escaping @Sendable (Resolver) throws -> T, argumentFactory: ArgumentFactory<T>?,
        from plain: Container.Registered? = nil
    ) {
        callWithoutArguments = call
        self.argumentFactory = argumentFactory
        guard lifetime.isOwnerRooted else {
            if lifetime == .unique {
                slotType = nil
                boxType = nil
            } else {
                slotType = Slot<T>.self
                boxType = StrongBox<T>.self
            }
            self.slot = nil
            super.init(key: key, lifetime: lifetime, owner: owner, from: plain)
            return
        }
        let slotType = Slot<T>.self
        let boxType = StrongBox<T>.self
        self.slotType = slotType
        self.boxType = boxType
        let retirement = Retirement()
        self.slot = slotType.init(weak: lifetime == .weakSingleton, retirement: retirement, boxType: boxType)
        super.init(key: key, lifetime: lifetime, owner: owner, retirement: retirement)
    }

    /// `value` in a `StrongBox<T>`, made without looking up the box type's metadata.
    func makeBox(_ value: T) -> AnyObject { (boxType ?? StrongBox<T>.self).init(value) }

    override var ownerSlot: AnySlot? { slot }
    override func makeSlot() -> AnySlot {
        (slotType ?? Slot<T>.self).init(
            weak: lifetime == .weakSingleton, retirement: retirement, boxType: boxType ?? StrongBox<T>.self)
    }

    func addBlock(_ block: @escaping @Sendable (Resolver, T) throws -> Void) {
        addErasedBlock { resolver, instance in try block(resolver, instance as! T) }
    }

    override func produce<R>(_ request: Request, as type: R.Type, in context: ResolutionContext) throws -> R {
        let value = try instance(request, in: context)
        if R.self == T.self { return unsafeBitCast(value, to: R.self) }
        return try cast(value, to: R.self, request, in: context)
    }

    /// A forwarded type's instance. Apart from `produce`, whose unspecialized code would
    /// otherwise look up `Optional<R>`'s metadata on every resolve.
    @inline(never)
    private func cast<R>(_ value: T, to type: R.Type, _ request: Request, in context: ResolutionContext) throws -> R {
        if let cast = value as? R { return cast }
        let forwarded = request.key.serviceKey
        let produced = String(describing: Swift.type(of: value as Any))
        throw context.error(
            .typeMismatch, request.key,
            suggestions: [
                "the \(T.self) registration in '\(ownerName)' answers \(forwarded) through implements(_:), but its factory returned an instance of \(produced), which does not conform to \(forwarded.typeName); make \(produced) conform, or remove that implements call"
            ])
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
                slot = reinterpret(scope.slot(for: self, in: owner))
            } else {
                slot = self.slot!
            }
            return try context.cachedInstance(self, slot: slot, request, root: owner)
        case .perContainer:
            return try perContainerInstance(request, in: context)
        }
    }

    /// The `perContainer` instance of the container the request started from (or of the
    /// active scope, when it isolates caches).
    @inline(__always)
    func perContainerInstance(_ request: Request, in context: ResolutionContext) throws -> T {
        let start = request.start
        if let scope = context.cacheScope {
            let slot: Slot<T> = reinterpret(scope.slot(for: self, in: start))
            return try context.cachedInstance(self, slot: slot, request, root: start)
        }
        let (erased, claimed) = start.perContainerSlot(for: self, claimingFor: context)
        let slot: Slot<T> = reinterpret(erased)
        // A slot made just now holds nothing yet, and this resolve already owns it.
        if claimed { return try context.buildOwnedInstance(self, slot: slot, request, root: start) }
        return try context.cachedInstance(self, slot: slot, request, root: start)
    }

    /// Calls the factory of an argument-free key (the inlined path: no `Arguments?` to
    /// copy or destroy).
    @inlinable
    func makeWithoutArguments(_ resolver: Resolver) throws -> T {
        try callWithoutArguments(resolver)
    }

    /// Calls the factory.
    @inlinable
    func make(_ resolver: Resolver, _ arguments: Arguments?) throws -> T {
        guard let argumentFactory, let arguments else { return try callWithoutArguments(resolver) }
        return try argumentFactory.body(resolver, arguments)
    }
}
