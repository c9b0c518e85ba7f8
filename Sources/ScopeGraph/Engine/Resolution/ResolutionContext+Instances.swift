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
    func instance<T>(of entry: Entry<T>, for request: Request) throws -> T {
        switch entry.lifetime {
        case .unique:
            return try construct(entry, request, root: request.start, identity: entry.serial)
        case .graph:
            return try graphInstance(entry, request)
        case .singleton, .weakSingleton, .eagerSingleton:
            guard let owner = entry.owner else { throw ownerGoneError(entry, request) }
            let slot: AnySlot
            if let scope = ScopeActivity.current?.cacheScope {
                slot = scope.slot(for: entry, in: owner)
            } else {
                // Invariant: an owner-rooted entry always has its slot (`Entry.init`).
                slot = entry.slot!
            }
            return try cachedInstance(entry, slot: slot, request, root: owner)
        case .perContainer:
            let start = request.start
            let slot =
                ScopeActivity.current?.cacheScope?.slot(for: entry, in: start) ?? start.perContainerSlot(for: entry)
            return try cachedInstance(entry, slot: slot, request, root: start)
        }
    }

    /// The `graph` instance of `entry` this resolve holds for requests from the request's
    /// starting container, built now if there is none. A block's own request, when there is
    /// none, gets the oldest instance of the registration this resolve built from anywhere:
    /// every instance a resolve built is visible to its blocks, which is how a
    /// property-injection cycle closes on the instance the resolve returns.
    private func graphInstance<T>(_ entry: Entry<T>, _ request: Request) throws -> T {
        // Instances resolved with runtime arguments are never shared.
        if request.arguments != nil {
            return try construct(entry, request, root: request.start, identity: entry.serial)
        }
        let key = GraphKey(entry: entry.serial, start: request.start.serial)
        if !graph.isEmpty {
            var position = graph.position(of: key)
            if position == nil, stack.count == blockFrameDepth {
                position = graph.firstPosition { $0.entry == entry.serial }
            }
            // Checked: the graph holds, for this registration, only instances of its `T`.
            if let position { return graph.value(at: position) as! T }
        }
        let value = try construct(entry, request, root: request.start, identity: entry.serial)
        graph.set(value, for: key)
        return value
    }

    /// The instance of a cached lifetime: published, being built by this resolve (or by one
    /// that shares a cycle with it), or built now. Waits while another thread builds it.
    private func cachedInstance<T>(_ entry: Entry<T>, slot erased: AnySlot, _ request: Request, root: Container)
        throws -> T
    {
        // Invariant: slots are made by `Entry<T>` (`init`, `makeSlot`), so they are `Slot<T>`.
        assert(erased is Slot<T>, "ScopeGraph: a \(type(of: erased)) for \(T.self)")
        let slot = unsafeDowncast(erased, to: Slot<T>.self)
        if let published = slot.published() { return published }
        // Checked: what a slot of `T` holds is a `T`.
        if let value = try BuildCoordinator.shared.acquire(slot, for: self, key: request.key) { return value as! T }
        let value: T
        do {
            value = try construct(entry, request, root: root)
        } catch {
            BuildCoordinator.shared.abandon(slot, by: self)
            throw error
        }
        guard let made = slot.makeBox(value) else {
            // A value type in a weak slot cannot be held weakly: it behaves as `unique`, so the
            // slot is given up and the next request, in this resolve too, builds a new value.
            BuildCoordinator.shared.abandon(slot, by: self)
            return value
        }
        BuildCoordinator.shared.built(
            slot, SlotBuildState.Built(box: made.box, object: made.object, value: value), by: self)
        return value
    }

    // MARK: The one construction path
    //
    // Every new instance, of every lifetime, is built here. A frame is pushed (after checking
    // for a cycle), the factory runs with a `Resolver` that carries this context, and the frame
    // is popped when it returns (queueing the instance's `onResolved` blocks) or throws
    // (turning the error into a `ResolutionError` about the deepest cause).

    /// Runs `entry`'s factory for `request`, resolving its dependencies from `root`.
    /// `identity` is set for uncached lifetimes, whose cycles are detected by registration.
    func construct<T>(_ entry: Entry<T>, _ request: Request, root: Container, identity: UInt64? = nil) throws -> T {
        // The frame keeps the requested key only when it is not the entry's own.
        let requested: Key? = request.key == entry.key ? nil : request.key
        try enterConstruction(entry, key: requested, identity: identity)
        let value: T
        do {
            value = try entry.make(Resolver(container: root, context: self), request.arguments)
        } catch {
            throw failConstruction(request.key, error)
        }
        leaveConstruction(entry, key: request.key, root: root, value: value)
        return value
    }

    /// Pushes the frame of a new instance of `entry`. Throws `.circularDependency` when the
    /// same uncached registration is already being built in this resolve.
    private func enterConstruction(_ entry: AnyEntry, key requested: Key?, identity: UInt64?) throws {
        if let identity, stack.contains(where: { $0.identity == identity }) {
            throw cycleError(requested ?? entry.key)
        }
        if let endless = endlessBlockChain(entry, key: requested ?? entry.key) { throw endless }
        stack.append(Frame(requestedKey: requested, entry: entry, identity: identity))
    }

    /// Pops the frame after the factory returned: records the instance for observers and
    /// queues its `onResolved` blocks (their resolver starts at `root`, like the factory's).
    private func leaveConstruction<T>(_ entry: AnyEntry, key: Key, root: Container, value: T) {
        stack.removeLast()
        lastConstructed = entry.serial
        lastConstructedDepth = stack.count
        // Boxed as `Any` only for blocks: most instances have none.
        if entry.hasOnResolvedBlocks { queueBlocks(of: entry, key: key, root: root, instance: value) }
    }

    /// Pops the frame after the factory threw; returns the error to throw: a nested
    /// `ResolutionError` unchanged, anything else as `.factoryFailed` with this frame's path.
    private func failConstruction(_ key: Key, _ error: any Error) -> any Error {
        defer { stack.removeLast() }
        if let failure = error as? ResolutionError { return failure }
        return frameError(.factoryFailed(error), key)
    }
}
