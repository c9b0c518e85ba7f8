/// `resolveAsync`'s synchronous shortcut: the requests whose async resolve would not suspend
/// at its top are answered without async frames, and a request that would only wait for
/// another resolve's build waits as a reader (`BuildCoordinator+Readers.swift`), without a
/// resolve of its own.
extension ResolutionContext {
    /// What the shortcut did for a request, or what the caller does next: decided by
    /// `shortcut`. `ShortcutOutcome` is the same without the slot, for the inlinable
    /// `resolveAsync` (`Container.resolveWithoutSuspending`). Not generic (the instance goes to
    /// the caller's closure): in unspecialized generic code, an enum with a `T` payload costs a
    /// runtime metadata lookup per call, as much as the rest of a transient's resolve.
    enum ShortcutDecision {
        /// The instance was handed to the caller.
        case delivered
        /// Another resolve is building the cached instance: wait for that build to end
        /// (`BuildCoordinator.awaitBuild(of:)`), then ask again.
        case awaitBuild(AnySlot)
        /// The async path must run; nothing was built.
        case resolveAsync
    }

    /// The shortcut for an untagged or tagged request without runtime arguments, made from
    /// `start`:
    /// - `unique` or `graph` with a synchronous factory: the synchronous resolve does exactly
    ///   what the async one would (a synchronous factory's requests are synchronous in both).
    ///   Like the async path, it joins the resolve of the async factory that asks, if any.
    /// - a cached lifetime whose instance is published: that instance, as the async path
    ///   would read it.
    /// - a cached lifetime with a synchronous factory, for a request that starts a resolve
    ///   (`startsResolve`: no async factory of this task asks): the synchronous resolve, which
    ///   builds the instance if the slot is free; its factory's requests are synchronous in
    ///   both paths. To other resolves it stands for the async resolve it replaces
    ///   (`isAsync`: a thread that needs what it builds throws `.requiresAsync`). A factory
    ///   that throws gives its slot up (`abandon`): the tasks that waited for it build again.
    ///   Not in a resolve this request joined on the thread (see below).
    /// - a cached lifetime that another resolve is building, for a request that starts a
    ///   resolve: `.awaitBuild` (the synchronous resolve declines to wait for it, see
    ///   `ResolutionContext.declinesWaitingAtTop`). Such a request holds nothing another
    ///   resolve could wait for, so it cannot close a cycle.
    ///
    /// With a resolution observer active (a trace), only the first applies: the async path
    /// records what the others would skip.
    static func shortcut<T>(
        _ key: Key, as type: T.Type, from start: Container, startsResolve: Bool, deliver: (T) -> Void
    ) throws -> ShortcutDecision {
        do {
            return try shortcutInContext(key, as: type, from: start, startsResolve: startsResolve, deliver: deliver)
        } catch let declined as BuildCoordinator.DeclinedWait {
            return .awaitBuild(declined.slot)
        }
    }

    private static func shortcutInContext<T>(
        _ key: Key, as type: T.Type, from start: Container, startsResolve: Bool, deliver: (T) -> Void
    ) throws -> ShortcutDecision {
        try withContext { context in
            context.noteTopLevelStart(start)
            let scope = ScopeActivity.current
            guard let entry = try context.lookup(key, from: start, scope: scope) else { return .resolveAsync }
            let request = Request(key: key, start: start, arguments: nil)
            switch entry.lifetime {
            case .unique, .graph:
                guard entry.kind == .sync else { return .resolveAsync }
                deliver(try context.produce(entry, request, as: T.self))
                return .delivered
            case .singleton, .weakSingleton, .eagerSingleton, .perContainer:
                guard scope?.observer == nil, let slot = entry.cacheSlot(for: request, in: context) else {
                    return .resolveAsync
                }
                if entry.valueType == T.self {
                    // Invariant: an entry of `T`'s own type makes `Slot<T>`s (`Entry<T>`).
                    assert(slot is Slot<T>, "ScopeGraph: a \(Swift.type(of: slot)) for \(T.self)")
                    if unsafeDowncast(slot, to: Slot<T>.self).deliverPublished(to: deliver) { return .delivered }
                } else if let decision = deliverForwarded(slot, as: T.self, to: deliver) {
                    return decision
                }
                guard startsResolve else { return .resolveAsync }
                // Only a fresh resolve, which no other resolve can reach yet, builds here: not
                // one this request joined on the thread (a task started with `Task.immediate`
                // inside a synchronous factory runs its first part in that factory's resolve).
                guard entry.kind == .sync, context.stack.isEmpty, !context.usedCoordinator else {
                    // Only a build in progress is worth waiting for: an idle slot is built by
                    // the async path.
                    return BuildCoordinator.shared.isBuilding(slot) ? .awaitBuild(slot) : .resolveAsync
                }
                context.declinesWaitingAtTop = true
                // Seen by other resolves as the async resolve it stands for: a thread that needs
                // what it builds throws `.requiresAsync` instead of waiting, as the contract
                // says of async resolves. Reset when the context is reused (`takeSpare`).
                context.isAsync = true
                defer { context.declinesWaitingAtTop = false }
                deliver(try context.produce(entry, request, as: T.self))
                return .delivered
            }
        }
    }

    /// The shortcut's decision for a forwarded type's published instance; `nil` when none is
    /// published. A function of its own: the `T?` of its cast costs a metadata lookup, which
    /// requests for a registration's own type should not pay.
    @inline(never)
    private static func deliverForwarded<T>(_ slot: AnySlot, as type: T.Type, to deliver: (T) -> Void)
        -> ShortcutDecision?
    {
        guard let published = slot.publishedAny() else { return nil }
        // A forwarded request whose instance is not a `T` gets its error from the async path.
        guard let instance = published as? T else { return .resolveAsync }
        deliver(instance)
        return .delivered
    }
}
