import Synchronization

/// The end of a resolve that took part in coordination: `finish` waits until every member of
/// its group has finished, runs their `onResolved` blocks (`runBlocks`, the lock released) and
/// publishes their incomplete instances; `fail` fails the group and releases its slots. The
/// async driver of the same decisions is `finishAsync` (`BuildCoordinator+Async.swift`).
extension BuildCoordinator {
    /// Marks `context` finished; once every member of its group has, one of them runs all
    /// the members' pending `onResolved` blocks in the order their factories finished (each
    /// with its own context bound), and then every instance is published. Throws the group's
    /// error if a member or a block failed. Blocks this thread while the group's other
    /// members have not finished (the synchronous driver of `decideFinish`).
    func finish(_ context: ResolutionContext) throws {
        try withLock { releases in
            begin(finishing: context)
            // The group and its members reference each other; a finished member lets go.
            defer { retire(context, into: &releases) }
            while true {
                switch decideFinish(context, into: &releases) {
                case .done:
                    return
                case .failed(let error):
                    throw error
                case .runBlocks(var work):
                    unlockResuming()
                    let failure = runBlocks(&work, of: context)
                    lock.lock()
                    endBlocks(of: context, failure: failure, into: &releases)
                    if let failure { throw failure }
                case .wait:
                    if let running = context.group.members.first(where: { $0.isAsync && !$0.isDone }) {
                        // A thread never waits for a resolve that may suspend: the group fails.
                        let error = requiresAsync(waitingFor: running, in: context)
                        if context.group.error == nil { context.group.error = error }
                        continue
                    }
                    let record = WaitRecords.beginWaitForGroup(of: context)
                    waitForChange()
                    WaitRecords.end(record)
                }
            }
        }
    }

    /// What a finishing resolve does next: decided by `decideFinish`, under the lock; the
    /// caller (`finish`, `finishAsync`) acts on it.
    enum FinishDecision {
        /// Published (by this member or another): the resolve succeeded.
        case done
        /// The group failed; this member's slots are released.
        case failed(any Error)
        /// Run these blocks, with the lock released, then decide again (`endBlocks`).
        case runBlocks([(ResolutionContext, ResolutionContext.PendingBlocks)])
        /// Other members have not finished: wait for a change.
        case wait
    }

    /// Marks `context` finished. Call with the lock held.
    func begin(finishing context: ResolutionContext) {
        joinOwnGroup(context)
        context.isDone = true
        wakeAll()
    }

    /// The state machine of a finishing resolve. Call with the lock held.
    func decideFinish(_ context: ResolutionContext, into releases: inout DeferredReleases) -> FinishDecision {
        if let error = context.group.error {
            // Another member failed; this one's builds succeeded and are discarded. Their
            // slots become free, so that resolves waiting for them build them again instead of
            // taking that member's error for the failure of a build they never asked for.
            release(context, keepingError: false, into: &releases)
            wakeAll()  // waiters on the released slots build them themselves
            return .failed(error)
        }
        if context.group.published { return .done }
        guard context.group.members.allSatisfy(\.isDone), context.group.runningBlocks == 0 else { return .wait }
        // Checked first: collecting no blocks still allocated an array.
        if context.group.members.contains(where: { !$0.pending.isEmpty }) {
            var work = context.group.members.flatMap { member in member.takePending().map { (member, $0) } }
            // Blocks may build more instances, with blocks of their own: decided again after.
            work.sort { $0.1.sequence < $1.1.sequence }
            context.group.runningBlocks += 1
            return .runBlocks(work)
        }
        if let error = shutDownTarget(of: context, into: &releases) {
            context.group.error = error
            release(context, into: &releases)
            wakeAll()
            return .failed(error)
        }
        #if DEBUG
        pauseBeforeGroupPublication(of: context)
        #endif
        var refused: ResolutionError?
        for member in context.group.members {
            if let error = publish(member, into: &releases) { refused = refused ?? error }
        }
        context.group.published = true
        wakeAll()
        // A shutdown that began meanwhile refused an instance: the group fails (what the
        // others built is published, complete, and stays: see "Publication").
        if let refused {
            context.group.error = refused
            return .failed(refused)
        }
        return .done
    }

    /// Records that blocks `decideFinish` handed out have run. Call with the lock held.
    func endBlocks(of context: ResolutionContext, failure: (any Error)?, into releases: inout DeferredReleases) {
        // The group may have merged into another meanwhile: the count moved with it.
        context.group.runningBlocks -= 1
        if let failure {
            if context.group.error == nil { context.group.error = failure }
            release(context, into: &releases)
        }
        wakeAll()
    }

    /// Marks `context` failed: its group fails, its slots are released.
    func fail(_ context: ResolutionContext, with error: any Error) {
        // The blocks that will never run are released after unlocking: they hold resolvers of
        // this context (a cycle otherwise), and instances whose deinit may resolve.
        let unrun = withLock { releases -> [ResolutionContext.PendingBlocks] in
            defer { context.pending = [] }
            let unrun = context.pending
            joinOwnGroup(context)
            if withdraw(failedBuild: context, error: error, into: &releases) { return unrun }
            // A caller cancelled while it waited: the builds it handed off go on, for the
            // other callers, as a group of their own.
            if error is CancellationError { detachHandedOffBuilds(of: context) }
            context.isDone = true
            if context.group.error == nil { context.group.error = error }
            release(context, into: &releases)
            retire(context, into: &releases)
            wakeAll()
            return unrun
        }
        _ = unrun
    }

    /// Runs blocks of the group's members (call with the lock released), each with its owner's
    /// context bound to this thread, and empties `work` before returning (a block holds its
    /// instance, whose last reference may go with it). Returns the first failure.
    func runBlocks(
        _ work: inout [(ResolutionContext, ResolutionContext.PendingBlocks)], of context: ResolutionContext
    ) -> (any Error)? {
        let thread = ThreadState.current
        let previous = thread.context
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
        // Unbound before the blocks go: a deinit that resolves starts a resolve of its own
        // instead of joining a finished one (and the unretained binding never outlives the
        // context it names).
        thread.context = previous
        work = []
        return failure
    }
}

#if DEBUG
extension BuildCoordinator {
    /// Debug builds: a test's pause point between a group's check of its containers
    /// (`shutDownTarget`) and its publication, where a shutdown that begins (which takes no
    /// coordinator lock) is seen only by the publication. Called with the lock held, with the
    /// types of the instances the group is about to publish; `nil` (no pause) unless a test
    /// sets it.
    static let beforeGroupPublication = Mutex<(@Sendable (_ types: [ObjectIdentifier]) -> Void)?>(nil)

    fileprivate func pauseBeforeGroupPublication(of context: ResolutionContext) {
        guard let pause = Self.beforeGroupPublication.withLock({ $0 }) else { return }
        pause(
            context.group.members.flatMap { member in
                member.ownedSlots.compactMap { slot in
                    slot.build.builder === member ? slot.build.built.map { ObjectIdentifier($0.entry.valueType) } : nil
                }
            })
    }
}
#endif
