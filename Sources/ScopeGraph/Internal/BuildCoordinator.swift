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

    let lock = Lock()

    /// Returns the instance to use, or `nil` when the caller now owns `slot` and must build it.
    func acquire(_ slot: AnySlot, for context: ResolutionContext, key: Key) throws -> Any? {
        context.usedCoordinator = true
        lock.lock()
        defer { lock.unlock() }
        if context.group == nil { context.group = ResolutionGroup(context) }
        while true {
            if let error = context.group.error { throw error }
            if let value = slot.publishedAny() { return value }
            guard let owner = slot.builder else {
                slot.builder = context
                slot.phase = .constructing
                context.ownedSlots.append(slot)
                return nil
            }
            if owner === context {
                if case .built(let value) = slot.phase { return value }
                throw context.error(.circularDependency, key)
            }
            if owner.group === context.group, case .built(let value) = slot.phase { return value }
            if let cycle = waitCycle(from: owner, to: context) {
                merge(cycle + [context])
                lock.broadcast()
                if case .built(let value) = slot.phase { return value }
                // A constructor cycle across threads: the whole group fails now, so that the
                // other members stop waiting instead of retrying the slots this one gives up.
                let error = crossThreadCycleError(context, key: key, owner: owner)
                if context.group.error == nil { context.group.error = error }
                throw error
            }
            context.waitingOn = owner
            context.waitPath = context.stack.map(\.key) + [key]
            lock.wait()
            context.waitingOn = nil
        }
    }

    /// Records that the owner's factory for `slot` returned `value` (not yet published).
    func built(_ slot: AnySlot, value: Any) {
        lock.withLock {
            slot.phase = .built(value)
            lock.broadcast()
        }
    }

    /// Gives up a slot whose factory failed, so that others may build it.
    func abandon(_ slot: AnySlot, by context: ResolutionContext) {
        lock.withLock {
            if slot.builder === context {
                slot.builder = nil
                slot.phase = .constructing
            }
            context.ownedSlots.removeAll { $0 === slot }
            lock.broadcast()
        }
    }

    /// Marks `context` finished and publishes its group's instances once every member has
    /// finished; throws the group's error if another member failed.
    func finish(_ context: ResolutionContext) throws {
        lock.lock()
        defer { lock.unlock() }
        context.isDone = true
        lock.broadcast()
        while true {
            if let error = context.group.error {
                release(context)
                throw error
            }
            if context.group.published { return }
            if context.group.members.allSatisfy(\.isDone) {
                for member in context.group.members {
                    for slot in member.ownedSlots where slot.builder === member {
                        if case .built(let value) = slot.phase { slot.publish(value) }
                        slot.builder = nil
                        slot.phase = .constructing
                    }
                    member.ownedSlots = []
                }
                context.group.published = true
                lock.broadcast()
                return
            }
            lock.wait()
        }
    }

    /// Marks `context` failed: its group fails, its slots are released.
    func fail(_ context: ResolutionContext, with error: any Error) {
        lock.withLock {
            if context.group == nil { context.group = ResolutionGroup(context) }
            context.isDone = true
            if context.group.error == nil { context.group.error = error }
            release(context)
            lock.broadcast()
        }
    }

    private func release(_ context: ResolutionContext) {
        for slot in context.ownedSlots where slot.builder === context {
            slot.builder = nil
            slot.phase = .constructing
        }
        context.ownedSlots = []
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
            if let next = node.waitingOn, search(next) { return true }
            if node.isDone, let group = node.group, !group.published {
                for member in group.members where !member.isDone && search(member) { return true }
            }
            path.removeLast()
            return false
        }
        return search(start) ? path : nil
    }

    /// Joins the groups of `contexts` into one.
    private func merge(_ contexts: [ResolutionContext]) {
        for context in contexts where context.group == nil { context.group = ResolutionGroup(context) }
        guard let into = contexts.map({ $0.group! }).max(by: { $0.members.count < $1.members.count }) else { return }
        for context in contexts {
            let group = context.group!
            guard group !== into else { continue }
            for member in group.members {
                member.group = into
                into.members.append(member)
            }
            if into.error == nil { into.error = group.error }
        }
    }

    /// The cycle error for a constructor cycle spanning threads: this resolve's path, the key,
    /// then the owner's path from that key on.
    private func crossThreadCycleError(_ context: ResolutionContext, key: Key, owner: ResolutionContext)
        -> ResolutionError
    {
        let ownerPath = owner.waitPath
        let tail = ownerPath.firstIndex(of: key).map { Array(ownerPath[($0 + 1)...]) } ?? []
        let path = context.stack.map(\.key) + [key] + tail
        return ResolutionError(kind: .circularDependency, key: key.serviceKey, path: path.map(\.serviceKey))
    }
}
