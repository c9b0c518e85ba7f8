/// The async driver of the coordinator's state machine: the same decisions (`decide`,
/// `decideFinish`) as a thread's, but a task that must wait suspends on a continuation instead
/// of blocking its thread, and a cancelled task stops waiting.
extension BuildCoordinator {
    /// One suspended wait, so that a cancellation handler can find it. `isCancelled` is only
    /// touched with the coordinator's lock held.
    final class Waiter: @unchecked Sendable {
        // @unchecked: see above; `id` is immutable.
        let id: UInt64
        var isCancelled = false
        init(id: UInt64) { self.id = id }
    }

    /// `acquire` for an async resolve: returns the instance to use, or `nil` when the caller
    /// now owns `slot` and must build it. Suspends while another resolve builds it; throws
    /// `CancellationError` if the calling task is cancelled meanwhile (the build goes on).
    /// `handedOffTo` is the build this resolve just handed `slot` off to: if it has failed
    /// already, its error is this resolve's.
    func acquireAsync(
        _ slot: AnySlot, for context: ResolutionContext, key: Key, handedOffTo: ResolutionContext? = nil
    ) async throws -> Any? {
        context.usedCoordinator = true
        // The first decision is made without a continuation or a cancellation handler: most
        // requests read or build at once (a cancelled task still does; cancellation ends waits).
        let first = withLock { releases in
            joinOwnGroup(context)
            return decide(slot, for: context, key: key, waitedOn: handedOffTo, suspending: true, into: &releases)
        }
        switch first {
        case .read(let value): return value
        case .build: return nil
        case .fail(let error): throw error
        case .wait: break  // decided again below, ready to suspend
        }
        let waiter = makeWaiter()
        // The resolve whose build this one waited for last: if that build fails, its error.
        var waitedOn = handedOffTo
        while true {
            var decided: SlotDecision?
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let suspends = withLock { releases in
                        joinOwnGroup(context)
                        stopWaiting(context)
                        let decision = decide(
                            slot, for: context, key: key, waitedOn: waitedOn, suspending: true, into: &releases)
                        guard case .wait(let owner) = decision, !waiter.isCancelled else {
                            decided = decision
                            return false
                        }
                        startWaiting(context, on: owner, for: slot, key: key)
                        waitedOn = owner
                        suspended[waiter.id] = SuspendedWait(context: context, continuation: continuation)
                        return true
                    }
                    // Resumed after unlocking, as every continuation here (`pendingResumes`).
                    if !suspends { continuation.resume() }
                }
            } onCancel: {
                cancel(waiter)
            }
            guard let decided else { continue }  // woken: decide again
            switch decided {
            case .read(let value): return value
            case .build: return nil
            case .fail(let error): throw error
            case .wait: throw CancellationError()
            }
        }
    }

    /// `finish` for an async resolve: suspends while the group's other members have not
    /// finished. Not cancellable: the resolve's instances are published or released first.
    func finishAsync(_ context: ResolutionContext) async throws {
        // The first decision is made without suspending: a resolve alone in its group (one
        // that only read or built instances) finishes in one lock.
        var decision: FinishDecision? = withLock { releases in
            begin(finishing: context)
            return decideFinishRetiring(context, into: &releases)
        }
        var waiter: Waiter?
        while true {
            if decision == nil {
                let current = waiter ?? makeWaiter()
                waiter = current
                var record: UInt64 = 0
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let suspends = withLock { releases in
                        decision = decideFinishRetiring(context, into: &releases)
                        if decision == nil {
                            suspended[current.id] = SuspendedWait(context: context, continuation: continuation)
                            record = WaitRecords.beginWaitForGroup(of: context)
                        }
                        return decision == nil
                    }
                    if !suspends { continuation.resume() }
                }
                WaitRecords.end(record)
            }
            switch decision {
            case nil:
                continue  // woken: decide again
            case .done:
                return
            case .failed(let error):
                throw error
            case .runBlocks(var work):
                let failure = runBlocks(&work, of: context)
                withLock { releases in endBlocks(of: context, failure: failure, into: &releases) }
                if let failure {
                    withLock { releases in retire(context, into: &releases) }
                    throw failure
                }
                decision = nil
            case .wait:
                preconditionFailure("ScopeGraph: a finishing resolve woke without a step")
            }
        }
    }

    /// `decideFinish`, retiring `context` when the decision ends its resolve; `nil` for
    /// `.wait`. Call with the lock held.
    private func decideFinishRetiring(_ context: ResolutionContext, into releases: inout DeferredReleases)
        -> FinishDecision?
    {
        let decision = decideFinish(context, into: &releases)
        switch decision {
        case .wait: return nil
        case .done, .failed: retire(context, into: &releases)
        case .runBlocks: break
        }
        return decision
    }

    /// Makes `builder` the owner of `slot`, which `requester` owns: the factory runs in
    /// `builder`'s own task, apart from the requester's cancellation. The build joins the
    /// requester's group, so it is one resolve with the requester's: its blocks run when the
    /// requester's outermost factory has returned, it publishes with it and fails with it,
    /// unless the requester is cancelled (`detachHandedOffBuilds`).
    func handOff(_ slot: AnySlot, from requester: ResolutionContext, to builder: ResolutionContext) {
        withLock { _ in
            assert(slot.build.builder === requester, "ScopeGraph: a slot handed off by a resolve that did not own it")
            slot.build = .building(builder)
            slot.buildFrameIndex = 0
            requester.ownedSlots.removeAll { $0 === slot }
            builder.usedCoordinator = true
            joinOwnGroup(requester)
            builder.group = requester.group
            requester.group.members.append(builder)
            builder.handedOffBy = requester
            builder.ownedSlots.append(slot)
        }
    }

    /// Withdraws a handed-off build whose factory failed (not cancelled, in a group that has
    /// not failed) from the group of the resolve it built for: its error stays in its slots
    /// for those waiting for them (that resolve among them), which may handle it, instead of
    /// failing that whole resolve. True when it withdrew. Call with the lock held.
    func withdraw(failedBuild context: ResolutionContext, error: any Error, into releases: inout DeferredReleases)
        -> Bool
    {
        // Invariant: a branch never fails (`runBranch` ends it either way), so a context with a
        // `handedOffBy` that fails is a handed-off build.
        assert(
            context.handedOffBy == nil || context.branchAncestry.last?.context !== context.handedOffBy,
            "ScopeGraph: a branch failed")
        guard context.handedOffBy != nil, let group = context.group, group.error == nil,
            !(error is CancellationError)
        else { return false }
        context.isDone = true
        release(context, failure: error, into: &releases)
        group.members.removeAll { $0 === context }
        retire(context, into: &releases)
        wakeAll()
        return true
    }

    /// Moves the builds `context` handed off (and those they handed off in turn), running or
    /// finished, out of its group into a group of their own, so that they go on and publish
    /// when `context` fails because its task was cancelled. Call with the lock held.
    func detachHandedOffBuilds(of context: ResolutionContext) {
        guard let group = context.group else { return }
        func descends(_ member: ResolutionContext) -> Bool {
            var current = member.handedOffBy
            while let link = current {
                if link === context { return true }
                current = link.handedOffBy
            }
            return false
        }
        // Finished ones too: a build whose factory returned waits for the requester's group
        // to publish, and would be discarded with it.
        let moving = group.members.filter { $0 !== context && $0.group === group && descends($0) }
        guard let first = moving.first else { return }
        group.members.removeAll { member in moving.contains { $0 === member } }
        let detached = ResolutionGroup(first)
        detached.members = moving
        for member in moving {
            member.group = detached
            if member.handedOffBy === context { member.handedOffBy = nil }
        }
    }

    /// Ends `waiter`'s wait because its task was cancelled.
    private func cancel(_ waiter: Waiter) {
        withLock { _ in
            waiter.isCancelled = true
            if let wait = suspended.removeValue(forKey: waiter.id) { pendingResumes.append(.waiter(wait.continuation)) }
        }
    }
}
