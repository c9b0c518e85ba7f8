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
/// The lock here guards only bookkeeping; no factory or block ever runs under it.
final class BuildCoordinator: Sendable {
    static let shared = BuildCoordinator()

    let lock = WaitableLock()

    /// Returns the instance to use, or `nil` when the caller now owns `slot` and must build it.
    func acquire(_ slot: AnySlot, for context: ResolutionContext, key: Key) throws -> Any? {
        context.usedCoordinator = true
        return try withLock(releasingAfterwardsFor: context) { graveyard in
            try acquireLocked(slot, for: context, key: key, into: &graveyard)
        }
    }

    /// `acquire` with the lock held. Groups merged into another go to `graveyard`: a group may
    /// hold the last reference to a member's context or to an error, whose deinits may resolve.
    private func acquireLocked(
        _ slot: AnySlot, for context: ResolutionContext, key: Key, into graveyard: inout [Any]
    ) throws -> Any? {
        if context.group == nil { context.group = ResolutionGroup(context) }
        while true {
            if let error = context.group.error { throw error }
            // Most slots taken here are empty: skip the protected read of an empty box.
            if slot.box.load(ordering: .acquiring) != 0, let value = slot.publishedAny() { return value }
            guard let owner = slot.builder else {
                slot.builder = context
                context.ownedSlots.append(slot)
                return nil
            }
            if owner === context {
                if slot.builtBox != nil { return slot.builtAny() }
                throw context.cycleError(key)
            }
            if owner.group === context.group, slot.builtBox != nil { return slot.builtAny() }
            if let cycle = waitCycle(from: owner, to: context) {
                graveyard.append(contentsOf: merge(cycle + [context]) as [Any])
                lock.broadcast()
                if slot.builtBox != nil { return slot.builtAny() }
                // Now in one group, a member that waits for an instance already built can read
                // it and go on: those waits came from publication being delayed, not from a
                // dependency cycle. Only if a cycle of waits remains without them is this a
                // constructor cycle; otherwise this resolve waits for the slot like any other.
                if waitCycle(from: owner, to: context) != nil {
                    // A constructor cycle across threads: the whole group fails now, so that the
                    // other members stop waiting instead of retrying the slots this one gives up.
                    let error = crossThreadCycleError(context, key: key, owner: owner)
                    if context.group.error == nil { context.group.error = error }
                    throw error
                }
            }
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

    /// Makes `context` the builder of `slot` as `acquire` would, without the lock, for a slot
    /// made just now and a context that has not coordinated yet in its resolve. Call with the
    /// lock of the container the slot is being added to held: no other thread can reach the
    /// slot before that lock is released, nor the context (it builds and waits for nothing
    /// else), and a thread that later finds the slot there reads these fields under this
    /// coordinator's lock, after taking the container's, which orders the writes before it.
    func claimFresh(_ slot: AnySlot, for context: ResolutionContext) {
        context.usedCoordinator = true
        if context.group == nil { context.group = ResolutionGroup(context) }
        slot.builder = context
        context.ownedSlots.append(slot)
    }

    /// Records that the owner's factory for `slot` returned the instance `box` publishes (not
    /// yet published); `object` is the instance itself for a weak slot, whose box does not
    /// keep it.
    ///
    /// `isLastAct` says that `context`'s top-level resolve ends with this build (a request
    /// scope's first read of its `perContainer` service): nothing can fail or be built after
    /// it, so when that resolve is alone in its group with no blocks to run, what `finish`
    /// would publish when the resolve ends is published now, and the context is marked
    /// `finishedEarly` (one take of the lock instead of two).
    func built(
        _ slot: AnySlot, box: AnyObject, keeping object: AnyObject?, by context: ResolutionContext, isLastAct: Bool
    ) {
        withLock(releasingAfterwardsFor: context) { graveyard in
            slot.builtBox = box
            slot.builtObject = object
            if isLastAct, publishAlone(context, into: &graveyard) {
                context.finishedEarly = true
            } else {
                lock.broadcast()
            }
        }
    }

    /// Runs `body` with the lock held. What it puts in the graveyard, and the slots `context`
    /// retired (`ResolutionContext.retiredSlots`), are released after unlocking: a deinit may
    /// resolve.
    @inline(__always)
    private func withLock<R>(
        releasingAfterwardsFor context: ResolutionContext, _ body: (inout [Any]) throws -> R
    ) rethrows -> R {
        var graveyard: [Any] = []
        lock.lock()
        defer {
            lock.unlock()
            graveyard.removeAll()
            context.releaseRetiredSlots()
        }
        return try body(&graveyard)
    }

    /// Gives up a slot whose factory failed, so that others may build it.
    func abandon(_ slot: AnySlot, by context: ResolutionContext) {
        lock.withLock {
            if slot.builder === context {
                slot.builder = nil
                slot.builtBox = nil
                slot.builtObject = nil
            }
            context.ownedSlots.removeAll { $0 === slot }
            lock.broadcast()
        }
    }

    /// Marks `context` finished; once every member of its group has, one of them runs all
    /// the members' pending `onResolved` blocks in the order their factories finished (each
    /// with its own context bound), and then every instance is published. Throws the group's
    /// error if a member or a block failed.
    func finish(_ context: ResolutionContext, on thread: ThreadState) throws {
        try withLock(releasingAfterwardsFor: context) { graveyard in
            if publishAlone(context, into: &graveyard) { return }
            context.isDone = true
            lock.broadcast()
            // The group and its members reference each other; a finished member lets go (the
            // group is released after unlocking: it may hold an error or a member's context, the
            // last reference to either).
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
                        if let failure = runBlocks(&work, of: context, on: thread) {
                            if context.group.error == nil { context.group.error = failure }
                            release(context, into: &graveyard)
                            lock.broadcast()
                            throw failure
                        }
                        continue  // blocks may have built more instances, with blocks of their own
                    }
                    for member in context.group.members { publish(member, by: context, into: &graveyard) }
                    context.group.published = true
                    lock.broadcast()
                    return
                }
                lock.wait()
            }
        }
    }

    /// When `context` is alone in its group with no blocks to run (the common case), marks it
    /// finished, publishes what it built and wakes the waiters; otherwise returns false and
    /// changes nothing. Call with the lock held.
    private func publishAlone(_ context: ResolutionContext, into graveyard: inout [Any]) -> Bool {
        guard context.group.members.count == 1, context.group.error == nil, context.group.runningBlocks == 0,
            !context.hasPendingBlocks
        else { return false }
        context.isDone = true
        publish(context, by: context, into: &graveyard)
        if context.waiters == 0 {
            // Nobody can reach this context any more (its slots are released and no waiter
            // still points to it): its thread may reuse it, with its group of one.
            context.isRecyclable = true
        } else {
            context.group.published = true
            retire(context, into: &graveyard)
        }
        lock.broadcast()
        return true
    }

    /// Publishes what `member` built and lets go of its slots. What no slot keeps (replaced
    /// boxes, weakly held instances) goes to `graveyard`, and the slots to `context` (the
    /// publishing resolve's, `ResolutionContext.retiredSlots`), for release after unlocking:
    /// a slot whose container went meanwhile has its last reference here, and freeing it frees
    /// the instance, whose `deinit` may resolve.
    private func publish(_ member: ResolutionContext, by context: ResolutionContext, into graveyard: inout [Any]) {
        // Popped, and the built instance taken out of its slot: moved, not copied and released
        // (usually one slot; popping keeps the arrays' storage for the next resolve).
        while let slot = member.ownedSlots.popLast() {
            context.retiredSlots.append(slot)
            guard slot.builder === member else { continue }
            slot.builder = nil
            if let box = slot.builtBox.take() {
                slot.publish(box, into: &graveyard)
                // A weak slot's box does not keep the instance: it is released after unlocking.
                if let object = slot.builtObject.take() { graveyard.append(object) }
            }
        }
    }

    /// Runs blocks of the group's members with the lock released, each with its owner's
    /// context bound to this thread, and empties `work` before taking the lock again (a block
    /// holds its instance, and the last reference to an instance may go with it: its `deinit`
    /// may resolve). Returns the first failure.
    private func runBlocks(
        _ work: inout [(ResolutionContext, ResolutionContext.Pending)], of context: ResolutionContext,
        on thread: ThreadState
    ) -> (any Error)? {
        context.group.runningBlocks += 1
        lock.unlock()
        var failure: (any Error)?
        for (owner, item) in work {
            thread.context = Unmanaged.passUnretained(owner)
            do {
                try owner.run(item)
            } catch {
                failure = error
                break
            }
        }
        thread.context = Unmanaged.passUnretained(context)
        work = []
        lock.lock()
        // The group may have merged into another meanwhile: the count moved with it.
        context.group.runningBlocks -= 1
        lock.broadcast()
        return failure
    }

    /// Marks `context` failed: its group fails, its slots are released.
    func fail(_ context: ResolutionContext, with error: any Error) {
        // Released when this statement ends, after unlocking: a deinit may resolve.
        _ = lock.withLock { () -> [Any] in
            var graveyard: [Any] = []
            if context.group == nil { context.group = ResolutionGroup(context) }
            context.isDone = true
            if context.group.error == nil { context.group.error = error }
            release(context, into: &graveyard)
            retire(context, into: &graveyard)
            lock.broadcast()
            return graveyard
        }
    }

    /// Gives up the slots `context` was building; the instances they held go to `graveyard`,
    /// for the caller to release after unlocking.
    private func release(_ context: ResolutionContext, into graveyard: inout [Any]) {
        graveyard.append(contentsOf: context.ownedSlots as [Any])
        for slot in context.ownedSlots where slot.builder === context {
            if let box = slot.builtBox { graveyard.append(box) }
            if let object = slot.builtObject { graveyard.append(object) }
            slot.builtBox = nil
            slot.builtObject = nil
            slot.builder = nil
        }
        context.ownedSlots = []
    }

    /// Lets `context` go of its group, which goes to `graveyard`: released there, a group could
    /// free its error or another member's context (and what they hold) under the lock.
    private func retire(_ context: ResolutionContext, into graveyard: inout [Any]) {
        if let group = context.group { graveyard.append(group) }
        context.group = nil
    }

    /// The contexts on a path of waits from `start` back to `target`, if waiting on `start`
    /// would close a cycle. A context waits on the owner of the slot it waits for; a finished
    /// context waits on the unfinished members of its group.
    private func waitCycle(from start: ResolutionContext, to target: ResolutionContext) -> [ResolutionContext]? {
        var visited: Set<ObjectIdentifier> = []
        var path: [ResolutionContext] = []
        func search(_ node: ResolutionContext) -> Bool {
            if node === target { return true }
            guard visited.insert(ObjectIdentifier(node)).inserted else { return false }
            path.append(node)
            if let next = node.waitingOn, !node.canReadWhatItWaitsFor, search(next) { return true }
            if node.isDone, let group = node.group, !group.published {
                for member in group.members where !member.isDone && search(member) { return true }
            }
            path.removeLast()
            return false
        }
        return search(start) ? path : nil
    }

    /// Joins the groups of `contexts` into one; returns the groups absorbed, for the caller to
    /// release after unlocking.
    private func merge(_ contexts: [ResolutionContext]) -> [ResolutionGroup] {
        for context in contexts where context.group == nil { context.group = ResolutionGroup(context) }
        guard let into = contexts.map({ $0.group! }).max(by: { $0.members.count < $1.members.count }) else {
            return []
        }
        var absorbed: [ResolutionGroup] = []
        for context in contexts {
            let group = context.group!
            guard group !== into else { continue }
            absorbed.append(group)
            for member in group.members {
                member.group = into
                into.members.append(member)
            }
            if into.error == nil { into.error = group.error }
            into.runningBlocks += group.runningBlocks
            group.runningBlocks = 0
        }
        return absorbed
    }

    /// The cycle error for a constructor cycle spanning threads: this resolve's path, the key,
    /// then the owner's path from that key on.
    private func crossThreadCycleError(_ context: ResolutionContext, key: Key, owner: ResolutionContext)
        -> ResolutionError
    {
        let ownerPath = owner.waitPath
        let tail = ownerPath.firstIndex(of: key).map { Array(ownerPath[($0 + 1)...]) } ?? []
        let path = context.pathKeys + [key] + tail
        return Diagnosis.cycleError(key, path: path)
    }
}
