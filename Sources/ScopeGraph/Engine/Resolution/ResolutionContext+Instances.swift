import Synchronization

/// Where each lifetime's instance comes from, in one place:
///
/// | lifetime | cached where | dropped when | built from |
/// |---|---|---|---|
/// | `unique` | nowhere | — | the requesting container |
/// | `graph` | this resolve (`ResolutionContext.graph`), per registration and starting container | the resolve ends | the requesting container |
/// | `singleton`, `eagerSingleton` | the owner's slot (`Entry.slot`) | `remove`, replacement, `removeAll`, `restore`, the owner's end | the owner |
/// | `weakSingleton` | the owner's slot, weakly | as `singleton`, or when the last strong reference goes | the owner |
/// | `perContainer` | the starting container (`Container.State.perContainer`) | as `singleton` (the registration tells its holders), or that container's end | the requesting container |
///
/// An active override scope that isolates caches (ScopeGraphTesting, validation) takes the
/// place of the containers for every cached lifetime.
extension ResolutionContext {
    /// Process-wide order in which cached instances' factories returned.
    static let buildSequence = Atomic<Int>(0)

    func instance<T>(of entry: Entry<T>, for request: Request) throws -> T {
        // No `T?` is made here: in unspecialized generic code each one costs a metadata
        // lookup per call, which `unique`, the most common uncached lifetime, should not pay.
        switch entry.lifetime {
        case .unique:
            return try construct(entry, request, identity: entry.serial)
        case .graph:
            return try graphInstance(of: entry, for: request)
        case .singleton, .weakSingleton, .eagerSingleton, .perContainer:
            return try cachedLifetimeInstance(of: entry, for: request)
        }
    }

    /// A `graph` registration's instance: the one this resolve holds, or a new one it keeps.
    @inline(never)
    func graphInstance<T>(of entry: Entry<T>, for request: Request) throws -> T {
        // Instances resolved with runtime arguments are never shared.
        if request.arguments != nil {
            return try construct(entry, request, identity: entry.serial)
        }
        if let position = sharedGraphPosition(of: entry, for: request) {
            return sharedGraphInstance(at: position, as: T.self)
        }
        let value = try construct(entry, request, identity: entry.serial)
        keepGraphInstance(value, of: entry, for: request)
        return value
    }

    /// A cached lifetime's instance: the published one, the one another resolve is building
    /// (once it is published), or a new one this resolve builds and publishes once it is
    /// complete (see "Publication" below).
    @inline(never)
    func cachedLifetimeInstance<T>(of entry: Entry<T>, for request: Request) throws -> T {
        let (slot, root) = try cacheLocation(of: entry, for: request)
        return try slot.published { try newCachedInstance(of: entry, for: request, in: slot, owner: root) }
    }

    /// `cachedLifetimeInstance` when nothing is published yet: the instance another resolve is
    /// building, once it is published, or a new one this resolve builds and publishes once it
    /// is complete.
    private func newCachedInstance<T>(of entry: Entry<T>, for request: Request, in slot: Slot<T>, owner root: Container)
        throws -> T
    {
        if mayBuildUncontended, slot.claimUncontended(by: self) {
            return try buildUncontended(entry, for: request, in: slot, owner: root)
        }
        // Checked: what a slot of `T` holds is a `T`.
        if let value = try BuildCoordinator.shared.acquire(slot, for: self, key: request.key) { return value as! T }
        let value: T
        do {
            value = try construct(entry, request, owner: root)
        } catch {
            BuildCoordinator.shared.abandon(slot, by: self)
            throw error
        }
        try keepBuilt(value, of: entry, in: slot)
        return value
    }

    /// The slot a cached lifetime's instance lives in for `request`, and the container its
    /// factory resolves from: the owner's slot (owner-rooted), the starting container's slot
    /// (`perContainer`), or the active scope's stand-in for either.
    func cacheLocation<T>(of entry: Entry<T>, for request: Request) throws -> (slot: Slot<T>, root: Container) {
        let root: Container
        let erased: AnySlot
        let cacheScope = ScopeActivity.current?.cacheScope
        if entry.lifetime == .perContainer {
            root = request.start
            erased = cacheScope?.slot(for: entry, in: root) ?? root.perContainerSlot(for: entry)
        } else {
            guard let owner = entry.owner else { throw ownerGoneError(entry, request) }
            root = owner
            // Invariant: an owner-rooted entry always has its slot (`Entry.init`).
            erased = cacheScope?.slot(for: entry, in: owner) ?? entry.slot!
        }
        // Invariant: slots are made by `Entry<T>` (`init`, `makeSlot`), so they are `Slot<T>`.
        assert(erased is Slot<T>, "ScopeGraph: a \(type(of: erased)) for \(T.self)")
        return (unsafeDowncast(erased, to: Slot<T>.self), root)
    }

    /// The `graph` instance of `entry` this resolve holds for requests from the request's
    /// starting container. A block's own request, when there is none, gets the oldest instance
    /// of the registration this resolve built from anywhere: every instance a resolve built is
    /// visible to its blocks, which is how a property-injection cycle closes on the instance
    /// the resolve returns.
    ///
    /// Where it is in `graph`, not the instance: in unspecialized generic code a `T?` costs a
    /// metadata lookup per call (measured: about 250 instructions per shared instance in E).
    func sharedGraphPosition(of entry: AnyEntry, for request: Request) -> Int? {
        sharedGraphPosition(of: entry, from: request.start)
    }

    /// `sharedGraphPosition(of:for:)` for a request starting at `start` (the fast path's).
    func sharedGraphPosition(of entry: AnyEntry, from start: Container) -> Int? {
        guard !graph.isEmpty else { return nil }
        var position = graph.position(of: GraphKey(entry: entry.serial, start: start.serial))
        if position == nil, stack.count == blockFrameDepth {
            position = graph.firstPosition { $0.entry == entry.serial }
        }
        return position
    }

    /// The `graph` instance at `position` (from `sharedGraphPosition`) of a registration of `T`.
    func sharedGraphInstance<T>(at position: Int, as type: T.Type) -> T {
        // Checked: the graph holds, for this registration, only instances of its `T`.
        sharedGraphValue(at: position) as! T
    }

    /// The `graph` instance at `position`, erased (the fast path casts it in the caller's
    /// module, specialized).
    func sharedGraphValue(at position: Int) -> Any {
        if !incompleteGraph.isEmpty, incompleteGraph.contains(graph.key(at: position)) { noteIncompleteRead() }
        return graph.value(at: position)
    }

    /// Keeps a new `graph` instance for the rest of this resolve (call right after `construct`
    /// returned it: whether it is complete is the last construction's).
    func keepGraphInstance<T>(_ value: T, of entry: Entry<T>, for request: Request) {
        keepGraphValue(value, of: entry, from: request.start)
    }

    /// `keepGraphInstance` for a request starting at `start`, with the instance erased.
    func keepGraphValue(_ value: Any, of entry: AnyEntry, from start: Container) {
        let key = GraphKey(entry: entry.serial, start: start.serial)
        graph.set(value, for: key)
        if lastConstructedIsIncomplete { incompleteGraph.append(key) }
    }

    /// Hands the instance this resolve built for `slot` (which it owns) to the coordinator
    /// (call right after `construct` returned it): published now when it is complete, else
    /// when the resolve ends. Throws when the slot's container was shut down meanwhile.
    func keepBuilt<T>(_ value: T, of entry: Entry<T>, in slot: Slot<T>) throws {
        let complete = !lastConstructedIsIncomplete
        let sequence = Self.buildSequence.add(1, ordering: .relaxed).newValue
        guard let made = slot.makeBox(value, sequence: sequence) else {
            // A value type in a weak slot cannot be held weakly: it behaves as `unique`, so the
            // slot is given up and the next request, in this resolve too, builds a new value.
            BuildCoordinator.shared.abandon(slot, by: self)
            return
        }
        let built = SlotBuildState.Built(
            box: made.box, object: made.object, value: value, entry: entry, sequence: sequence)
        if complete {
            try BuildCoordinator.shared.publish(slot, built, by: self)
        } else {
            BuildCoordinator.shared.built(slot, built, by: self)
        }
    }

    // MARK: Publication
    //
    // A cached instance is published as soon as it is complete: its factory returned, its own
    // `onResolved` blocks ran, and everything it was built from is published. Completeness is
    // tracked per frame: reading an incomplete instance (one this resolve or its group built and
    // has not published, or an incomplete `graph` instance) marks every frame on the stack,
    // since each is being built from it (`incompleteDepth`); a frame that leaves marked, or
    // whose instance has blocks, makes an incomplete instance, which marks its parents in turn.
    // An incomplete cached instance is published with the rest of the resolve (its group's
    // finish), or discarded if the resolve fails; a complete one stays cached either way.

    /// Records that the frames on the stack are being built from an incomplete instance.
    func noteIncompleteRead() {
        incompleteDepth = stack.count
        sawIncomplete = true
    }

    // MARK: The one construction path
    //
    // Every new instance, of every lifetime, is built here. A frame is pushed (after checking
    // for a cycle), the factory runs with a `Resolver` that carries this context, and the frame
    // is popped when it returns (queueing the instance's `onResolved` blocks) or throws
    // (turning the error into a `ResolutionError` about the deepest cause).

    /// Runs `entry`'s factory for `request`, resolving its dependencies from `owner` (the slot's
    /// container, for cached lifetimes) or else from the request's starting container.
    /// `identity` is set for uncached lifetimes, whose cycles are detected by registration.
    func construct<T>(_ entry: Entry<T>, _ request: Request, owner: Container? = nil, identity: UInt64? = nil) throws
        -> T
    {
        // The frame keeps the requested key only when it is not the entry's own.
        let requested: Key? = request.key == entry.key ? nil : request.key
        try enterConstruction(entry, key: requested, identity: identity)
        let value: T
        let resolver = Resolver(container: owner ?? request.start, context: self)
        do {
            // After the cycle check: a constructor cycle is reported as one, whatever its kinds.
            if entry.kind != .sync { try checkRunnableSynchronously(entry, request.key) }
            if let mainActor = entry.mainActorFactory {
                value = try MainActorCheck.runAssumingMainActor { try mainActor.body(resolver, request.arguments) }
            } else {
                value = try entry.make(resolver, request.arguments)
            }
        } catch {
            throw failConstruction(request.key, error)
        }
        leaveConstruction(entry, key: request.key, root: resolver.container, value: value)
        return value
    }

    /// Throws unless a synchronous resolve may run `entry`'s factory here: never an async one,
    /// and a main-actor one only on the main actor. Call with its frame pushed (the error's
    /// path ends with it).
    private func checkRunnableSynchronously(_ entry: AnyEntry, _ key: Key) throws {
        switch entry.kind {
        case .sync:
            return
        case .async:
            let eager =
                entry.lifetime == .eagerSingleton
                ? " (an eagerSingleton: build it at start-up with try await container.bootstrapAsync())" : ""
            throw frameError(
                .requiresAsync, key,
                suggestions: [
                    "\(key.serviceKey) has an async factory: resolve it with try await resolveAsync(\(key.serviceKey.typeName).self)\(eager), or give the registration that needs it an async factory too."
                ])
        case .mainActor:
            guard !MainActorCheck.isOnMainActor else { return }
            throw frameError(
                .requiresMainActor, key,
                suggestions: [
                    "\(key.serviceKey) has a main-actor factory: resolve it on the main actor, or with try await resolveAsync(\(key.serviceKey.typeName).self) from anywhere."
                ])
        }
    }

    /// Pushes the frame of a new instance of `entry`. Throws `.circularDependency` when the
    /// same uncached registration is already being built in this resolve.
    func enterConstruction(_ entry: AnyEntry, key requested: Key?, identity: UInt64?) throws {
        if let identity,
            stack.contains(where: { $0.identity == identity })
                || (!inheritedIdentities.isEmpty && inheritedIdentities.contains(identity))
        {
            throw cycleError(requested ?? entry.key)
        }
        // Only while a block runs (checked here: the key is not copied otherwise).
        if !blockLineage.isEmpty, let endless = endlessBlockChain(entry, key: requested ?? entry.key) {
            throw endless
        }
        stack.append(Frame(requestedKey: requested, entry: entry, identity: identity))
    }

    /// Pops the frame after the factory returned: records the instance for observers and
    /// queues its `onResolved` blocks (their resolver starts at `root`, like the factory's).
    func leaveConstruction<T>(_ entry: AnyEntry, key: Key, root: Container, value: T) {
        leaveConstruction(entry)
        // Boxed as `Any` only for blocks: most instances have none.
        if entry.hasOnResolvedBlocks { queueBlocks(of: entry, key: key, root: root, instance: value) }
    }

    /// `leaveConstruction` without the blocks (the fast path's entries have none).
    func leaveConstruction(_ entry: AnyEntry) {
        stack.removeLast()
        lastConstructed = entry.serial
        lastConstructedDepth = stack.count
        // Incomplete: built from an incomplete instance (a mark at or above this frame), or
        // with blocks still to run. Then its parents are built from an incomplete instance.
        let incomplete = incompleteDepth > stack.count || entry.hasOnResolvedBlocks
        lastConstructedIsIncomplete = incomplete
        if incomplete { noteIncompleteRead() }
    }

    /// Pops the frame after the factory threw; returns the error to throw: a nested
    /// `ResolutionError` unchanged, anything else as `.factoryFailed` with this frame's path.
    func failConstruction(_ key: Key, _ error: any Error) -> any Error {
        defer {
            stack.removeLast()
            incompleteDepth = min(incompleteDepth, stack.count)
        }
        // A cancelled wait inside an async factory stays a `CancellationError`.
        if let failure = error as? ResolutionError { return failure }
        if error is CancellationError { return error }
        return frameError(.factoryFailed(error), key)
    }
}
