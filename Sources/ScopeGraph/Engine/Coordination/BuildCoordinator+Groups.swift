/// Publication, release and the groups of resolves that share a cycle across threads. Every
/// method here is called with the coordinator's lock held.
extension BuildCoordinator {
    /// Publishes what `member` built and lets go of its slots; what no slot keeps any more
    /// goes to `releases`. Returns the error for an instance whose container's shutdown
    /// began since `shutDownTarget` looked (its log refused it: nothing published in that
    /// slot), if there is one.
    func publish(_ member: ResolutionContext, into releases: inout DeferredReleases) -> ResolutionError? {
        var refused: ResolutionError?
        while let slot = member.ownedSlots.popLast() {
            releases.append(slot)
            guard slot.build.builder === member else { continue }
            // Moved out, not copied: the built instance's parts are not retained again.
            var state = SlotBuildState.idle
            swap(&state, &slot.build)
            // The instance a weak slot publishes, which only its readers would hold.
            var weakInstance: AnyObject?
            if case .built(_, let built) = consume state {
                switch publish(built, in: slot, into: &releases) {
                case .published(let object):
                    weakInstance = object
                case .refused(let container):
                    refused = refused ?? member.publicationShutDownError(built.entry, container: container)
                }
            }
            wakeReaders(of: slot, published: weakInstance)
        }
        return refused
    }

    /// What `publish(_:in:into:)` did.
    enum Publication {
        /// Published; for a weak slot, its instance, which only its readers would hold
        /// (released after unlocking), else `nil`.
        case published(AnyObject?)
        /// Refused, because the shutdown of this container (by name) has begun: nothing was
        /// published, and the built instance was discarded.
        case refused(container: String)
    }

    /// Publishes `built` in `slot` and records it for shutdown; refuses, publishing nothing,
    /// when the slot's container's shutdown has begun and the instance has hooks (decided
    /// under the container's shutdown log's lock, which the shutdown takes to begin: the
    /// instance is either recorded, and closed by that shutdown, or not published). An
    /// instance without hooks is published whatever the shutdown does meanwhile (it has
    /// nothing to close); the callers check the container first, as an uncontended build does.
    func publish(_ built: SlotBuildState.Built, in slot: AnySlot, into releases: inout DeferredReleases)
        -> Publication
    {
        if built.entry.hasShutdownHooks, let owner = slot.logOwner(keepingIn: &releases) {
            let record = ShutdownLog.Record(entry: built.entry, sequence: built.sequence, slot: slot)
            let recorded = owner.shutdownLog.record(
                record, unless: { owner.shutDownName != nil }, publishing: { slot.publish(built.box, into: &releases) })
            guard recorded else {
                built.discard(into: &releases)
                return .refused(container: owner.shutDownName ?? "")
            }
        } else {
            slot.publish(built.box, into: &releases)
        }
        // Removed or replaced meanwhile, this may be the registration's last reference (its
        // deinit releases the factory's captures, which may resolve).
        releases.append(built.entry)
        // A weak slot's box does not keep the instance: it is released after unlocking.
        guard let object = built.object else { return .published(nil) }
        releases.append(object)
        return .published(object)
    }

    /// The error when a member of `context`'s group built an instance for a container whose
    /// shutdown has begun. Checked before the group publishes anything; a shutdown that
    /// begins after this look still refuses the instances with hooks it would have to close
    /// (`publish(_:in:into:)`, under the container's shutdown log's lock).
    func shutDownTarget(of context: ResolutionContext, into releases: inout DeferredReleases) -> ResolutionError? {
        for member in context.group.members {
            for slot in member.ownedSlots where slot.build.builder === member {
                guard let name = slot.logOwner(keepingIn: &releases)?.shutDownName, let built = slot.build.built
                else { continue }
                return member.publicationShutDownError(built.entry, container: name)
            }
        }
        return nil
    }

    /// Gives up the slots `context` was building; the instances they held go to `releases`.
    /// An async resolve that failed itself leaves its error in the slots whose factory had not
    /// returned (the failure went through it), for the resolves that waited for them
    /// (`keepingError`); every other slot becomes free, so that its waiters build it again:
    /// one whose factory returned (another factory failed), and any after a cancellation (a
    /// caller's cancellation is not its waiters' failure). `failure` is the error to leave,
    /// when it is not the group's (a handed-off build that failed alone, `fail`).
    func release(
        _ context: ResolutionContext, keepingError: Bool = true, failure: (any Error)? = nil,
        into releases: inout DeferredReleases
    ) {
        for slot in context.ownedSlots where slot.build.builder === context {
            let built = slot.build.built
            built?.discard(into: &releases)
            if keepingError, context.isAsync, built == nil, let error = failure ?? context.group?.error,
                !(error is CancellationError)
            {
                slot.build = .failed(context, error)
            } else {
                slot.build = .idle
            }
            wakeReaders(of: slot)
        }
        releases.append(contentsOf: context.ownedSlots)
        context.ownedSlots = []
    }

    /// Puts `context`, which has no group, in one of its own: the one it kept from an earlier
    /// resolve (`retire`), or a new one.
    func joinOwnGroup(_ context: ResolutionContext) {
        guard context.group == nil else { return }
        if let group = context.spareGroup.take() {
            group.members.append(context)
            context.group = group
        } else {
            context.group = ResolutionGroup(context)
        }
    }

    /// Lets `context` go of its group, which goes to `releases`; or, when it was the group's
    /// only member, the group succeeded and nothing else references it, keeps it emptied for
    /// the context's next resolve (a thread reuses its context, `takeSpare`): measured, a group
    /// made per resolve cost a request scope (benchmark K) about 500 instructions.
    func retire(_ context: ResolutionContext, into releases: inout DeferredReleases) {
        if var group = context.group {
            context.group = nil
            if context.spareGroup == nil, group.error == nil, group.members.count == 1,
                isKnownUniquelyReferenced(&group)
            {
                assert(group.members[0] === context, "ScopeGraph: a lone group whose member is another resolve")
                group.members.removeAll(keepingCapacity: true)
                group.published = false
                group.runningBlocks = 0
                context.spareGroup = group
            } else {
                releases.append(group)
            }
        }
        // Its resolve ended, so did the requester's: the instances it delivered go.
        if !context.deliveredSlots.isEmpty {
            for slot in context.deliveredSlots {
                if case .delivered(let builder, let built) = slot.build, builder === context {
                    slot.build = .idle
                    releases.append(built)
                }
                releases.append(slot)
            }
            context.deliveredSlots = []
        }
        if let requester = context.handedOffBy { releases.append(requester) }
        context.handedOffBy = nil
        if !context.branches.isEmpty {
            releases.append(contentsOf: context.branches)
            context.branches = []
        }
        // A finished resolve no longer asks anything: the points it descends from, which
        // reference their resolves (released after unlocking), are not kept alive by it.
        if !context.branchAncestry.isEmpty {
            releases.append(contentsOf: context.branchAncestry)
            context.branchAncestry = []
        }
    }

    /// The contexts on a path of waits from `start` back to `target`, if waiting on `start`
    /// would close a cycle. A context waits on the owner of the slot it waits for (unless it
    /// can read what it waits for: built by a member of its own group); a finished context
    /// waits on the unfinished members of its group; a context waiting on nothing here may be
    /// awaiting its unfinished branches (`mayAwait`).
    func waitCycle(from start: ResolutionContext, to target: ResolutionContext) -> [ResolutionContext]? {
        var visited: Set<ObjectIdentifier> = []
        var path: [ResolutionContext] = []
        // Whom `node` waits on now: its slot's builder (the slot may have been handed off
        // since the wait began), or nobody once the build ended (it will decide again).
        func owner(of node: ResolutionContext) -> ResolutionContext? {
            guard node.waitingOn != nil, let slot = node.waitingSlot else { return node.waitingOn }
            return slot.build.builder
        }
        func canReadWhatItWaitsFor(_ node: ResolutionContext) -> Bool {
            guard let slot = node.waitingSlot, slot.build.built != nil, let owner = owner(of: node) else {
                return false
            }
            return owner.group === node.group
        }
        func search(_ node: ResolutionContext) -> Bool {
            if node === target { return true }
            // Contexts on a wait path are all alive (referenced by the path), so their
            // identities are distinct for the duration of the search.
            guard visited.insert(ObjectIdentifier(node)).inserted else { return false }
            path.append(node)
            if node.waitingOn != nil {
                if let next = owner(of: node), !canReadWhatItWaitsFor(node), search(next) { return true }
            } else if !node.isDone {
                for branch in node.branches where mayAwait(node, branch) && search(branch) { return true }
            }
            if node.isDone, let group = node.group, !group.published {
                for member in group.members where !member.isDone && search(member) { return true }
            }
            path.removeLast()
            return false
        }
        return search(start) ? path : nil
    }

    /// Whether `context`, which waits on nothing here, may be awaiting `branch` (one of its
    /// branches, unfinished): a child task is awaited at the frame it branched from, so not
    /// while `context` builds a slot in a frame above that one. (A branch never awaited, a task
    /// the factory left running, counts as awaited while that factory runs.)
    private func mayAwait(_ context: ResolutionContext, _ branch: ResolutionContext) -> Bool {
        guard !branch.isDone, let point = branch.branchAncestry.last, point.isOpen, point.context === context else {
            return false
        }
        return !context.ownedSlots.contains { slot in
            slot.build.builder === context && slot.build.built == nil && slot.buildFrameIndex > point.frameIndex
        }
    }

    /// Joins the groups of `contexts` into one; returns the groups absorbed, for the caller to
    /// release after unlocking.
    func merge(_ contexts: [ResolutionContext]) -> [ResolutionGroup] {
        for context in contexts { joinOwnGroup(context) }
        guard let into = contexts.map({ $0.group! }).max(by: { $0.members.count < $1.members.count }) else {
            return []
        }
        var absorbed: [ResolutionGroup] = []
        for context in contexts {
            let group = context.group!
            guard group !== into else { continue }
            absorbed.append(group)
            // A member that retired left the group (its `group` is nil) but is still listed:
            // moved, it would be in a group again, never to retire.
            for member in group.members where member.group === group {
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
    func crossThreadCycleError(_ context: ResolutionContext, key: Key, owner: ResolutionContext) -> ResolutionError {
        // A build handed off by this resolve's own path: the cycle is already in that path.
        let path = context.pathKeys
        if path.contains(key) { return Diagnosis.cycleError(key, path: path + [key]) }
        let ownerPath = owner.waitPath
        let tail = ownerPath.firstIndex(of: key).map { Array(ownerPath[($0 + 1)...]) } ?? []
        return Diagnosis.cycleError(key, path: path + [key] + tail)
    }
}
