/// Coordinates the building of cached instances across threads.
///
/// Reading a published instance never comes here. A resolve that finds a slot empty takes it
/// (and runs the factory outside any lock), so independent singletons build in parallel; a
/// resolve that finds a slot being built by another thread waits, unless waiting would close
/// a cycle of waits. That happens only when resolves on several threads are at the two ends
/// of one dependency cycle; they then join one `ResolutionGroup`: a member may read an
/// instance another member has built (its factory returned), the group publishes when every
/// member has finished, and fails together. A constructor cycle across threads (the slot's
/// factory is still running) is reported as `.circularDependency`, as on one thread.
///
/// The decisions are made under one lock (`decide` returns a `SlotAction`); no factory or
/// block ever runs under it, and what the lock protected is released after unlocking (a
/// deinit may resolve).
final class BuildCoordinator: Sendable {
    static let shared = BuildCoordinator()

    let lock = ConditionLock()

    /// Returns the instance to use, or `nil` when the caller now owns `slot` and must build it.
    func acquire(_ slot: AnySlot, for context: ResolutionContext, key: Key) throws -> Any? {
        context.usedCoordinator = true
        return try withLock { graveyard in
            if context.group == nil { context.group = ResolutionGroup(context) }
            while true {
                switch decide(slot, for: context, key: key, into: &graveyard) {
                case .read(let value):
                    return value
                case .build:
                    return nil
                case .fail(let error):
                    throw error
                case .wait(let owner):
                    context.waitingOn = owner
                    context.waitingSlot = slot
                    context.waitPath = context.pathKeys + [key]
                    owner.waiters += 1
                    lock.wait()
                    owner.waiters -= 1
                    context.waitingOn = nil
                    context.waitingSlot = nil
                }
            }
        }
    }

    /// The state machine's transition for a resolve that needs `slot`. Call with the lock
    /// held. Groups absorbed by a merge go to `graveyard`.
    private func decide(_ slot: AnySlot, for context: ResolutionContext, key: Key, into graveyard: inout [AnyObject])
        -> SlotAction
    {
        if let error = context.group.error { return .fail(error) }
        if slot.box.load(ordering: .acquiring) != 0, let value = slot.publishedAny() { return .read(value) }
        guard let owner = slot.build.builder else {
            slot.build = .building(context)
            context.ownedSlots.append(slot)
            return .build
        }
        if owner === context {
            if let built = slot.build.built { return .read(built.value) }
            return .fail(context.cycleError(key))
        }
        if owner.group === context.group, let built = slot.build.built { return .read(built.value) }
        if let cycle = waitCycle(from: owner, to: context) {
            graveyard.append(contentsOf: merge(cycle + [context]) as [AnyObject])
            lock.broadcast()
            if let built = slot.build.built { return .read(built.value) }
            // Now in one group, a member that waits for an instance already built can read
            // it and go on: those waits came from publication being delayed, not from a
            // dependency cycle. Only if a cycle of waits remains without them is this a
            // constructor cycle; otherwise this resolve waits for the slot like any other.
            if waitCycle(from: owner, to: context) != nil {
                // The whole group fails now, so that the other members stop waiting instead
                // of retrying the slots this one gives up.
                let error = crossThreadCycleError(context, key: key, owner: owner)
                if context.group.error == nil { context.group.error = error }
                return .fail(error)
            }
        }
        return .wait(for: owner)
    }

    /// Records that the owner's factory for `slot` returned `built` (not yet published).
    func built(_ slot: AnySlot, _ built: SlotBuildState.Built, by context: ResolutionContext) {
        withLock { _ in
            assert(slot.build.builder === context, "ScopeGraph: a slot built by a resolve that did not own it")
            slot.build = .built(context, built)
            lock.broadcast()
        }
    }

    /// Gives up a slot whose factory failed (or whose value cannot be kept), so that others
    /// may build it.
    func abandon(_ slot: AnySlot, by context: ResolutionContext) {
        withLock { graveyard in
            if slot.build.builder === context {
                if let built = slot.build.built { graveyard.append(built.box) }
                slot.build = .idle
            }
            context.ownedSlots.removeAll { $0 === slot }
            lock.broadcast()
        }
    }

    /// Marks `context` finished; once every member of its group has, one of them runs all
    /// the members' pending `onResolved` blocks in the order their factories finished (each
    /// with its own context bound), and then every instance is published. Throws the group's
    /// error if a member or a block failed.
    func finish(_ context: ResolutionContext) throws {
        try withLock { graveyard in
            if context.group == nil { context.group = ResolutionGroup(context) }
            context.isDone = true
            lock.broadcast()
            // The group and its members reference each other; a finished member lets go.
            defer { retire(context, into: &graveyard) }
            while true {
                if let error = context.group.error {
                    release(context, into: &graveyard)
                    lock.broadcast()  // waiters on the released slots build them themselves
                    throw error
                }
                if context.group.published { return }
                if context.group.members.allSatisfy(\.isDone), context.group.runningBlocks == 0 {
                    var work = context.group.members.flatMap { member in member.takePending().map { (member, $0) } }
                    if !work.isEmpty {
                        work.sort { $0.1.sequence < $1.1.sequence }
                        if let failure = runBlocks(&work, of: context) {
                            if context.group.error == nil { context.group.error = failure }
                            release(context, into: &graveyard)
                            lock.broadcast()
                            throw failure
                        }
                        continue  // blocks may have built more instances, with blocks of their own
                    }
                    for member in context.group.members { publish(member, into: &graveyard) }
                    context.group.published = true
                    lock.broadcast()
                    return
                }
                lock.wait()
            }
        }
    }

    /// Marks `context` failed: its group fails, its slots are released.
    func fail(_ context: ResolutionContext, with error: any Error) {
        withLock { graveyard in
            if context.group == nil { context.group = ResolutionGroup(context) }
            context.isDone = true
            if context.group.error == nil { context.group.error = error }
            release(context, into: &graveyard)
            retire(context, into: &graveyard)
            lock.broadcast()
        }
    }

    /// Runs `body` with the lock held; what it puts in the graveyard is released after
    /// unlocking (an instance's or a group's last reference may go there, and a deinit may
    /// resolve).
    private func withLock<R>(_ body: (inout [AnyObject]) throws -> R) rethrows -> R {
        var graveyard: [AnyObject] = []
        lock.lock()
        defer {
            lock.unlock()
            graveyard.removeAll()
        }
        return try body(&graveyard)
    }

    /// Runs blocks of the group's members with the lock released, each with its owner's
    /// context bound to this thread, and empties `work` before taking the lock again (a block
    /// holds its instance, whose last reference may go with it). Returns the first failure.
    private func runBlocks(
        _ work: inout [(ResolutionContext, ResolutionContext.PendingBlocks)], of context: ResolutionContext
    ) -> (any Error)? {
        context.group.runningBlocks += 1
        lock.unlock()
        let thread = ThreadState.current
        var failure: (any Error)?
        for (owner, item) in work {
            thread.context = owner
            do {
                try owner.run(item)
            } catch {
                failure = error
                break
            }
        }
        thread.context = context
        work = []
        lock.lock()
        // The group may have merged into another meanwhile: the count moved with it.
        context.group.runningBlocks -= 1
        lock.broadcast()
        return failure
    }
}
