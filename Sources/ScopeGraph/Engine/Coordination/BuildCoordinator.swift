import Synchronization

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
/// The decisions are made under one lock (`decide` returns a `SlotDecision`, `decideFinish` a
/// `FinishDecision`); no factory or block ever runs under it, and what the lock protected is released after unlocking (a
/// deinit may resolve).
final class BuildCoordinator: @unchecked Sendable {
    // @unchecked: `suspended` is only touched with `lock` held; `waiterSerials` is atomic.
    static let shared = BuildCoordinator()

    let lock = ConditionLock()
    /// Tasks waiting (suspended) for a change, by waiter: woken by `wakeAll`.
    @exclusivity(unchecked) var suspended: [UInt64: SuspendedWait] = [:]
    /// Continuations to resume once the lock is released (`unlockResuming`). Never resumed
    /// under the lock: resuming a task takes its status lock, which the runtime holds while it
    /// runs that task's cancellation handler, and those handlers take this lock.
    @exclusivity(unchecked) var pendingResumes: [Resumption] = []
    /// The source of waiter identities (`Waiter.id`), taken without the lock.
    let waiterSerials = Atomic<UInt64>(0)

    /// Returns the instance to use, or `nil` when the caller now owns `slot` and must build it.
    func acquire(_ slot: AnySlot, for context: ResolutionContext, key: Key) throws -> Any? {
        context.usedCoordinator = true
        // A request that declines to wait suspends instead (its task waits as a reader), so
        // it may wait for a resolve that suspends.
        let declinesWaiting = context.declinesWaitingAtTop && context.stack.isEmpty
        return try withLock { releases in
            joinOwnGroup(context)
            while true {
                switch decide(
                    slot, for: context, key: key, waitedOn: nil, suspending: declinesWaiting, into: &releases)
                {
                case .read(let value):
                    return value
                case .build:
                    return nil
                case .fail(let error):
                    throw error
                case .wait(let owner):
                    if declinesWaiting {
                        // Invariant: a fresh resolve's first request shares nothing: `decide`
                        // merged no group (nobody waits for a resolve that owns no slot).
                        assert(
                            context.ownedSlots.isEmpty && context.group.members.count == 1,
                            "ScopeGraph: a declined wait after the resolve took part in coordination")
                        throw DeclinedWait(slot: slot)
                    }
                    startWaiting(context, on: owner, for: slot, key: key)
                    waitForChange()
                    stopWaiting(context)
                }
            }
        }
    }

    /// The state machine's transition for a resolve that needs `slot`. Call with the lock
    /// held. Groups absorbed by a merge go to `releases`.
    func decide(
        _ slot: AnySlot, for context: ResolutionContext, key: Key, waitedOn: ResolutionContext?, suspending: Bool,
        into releases: inout DeferredReleases
    ) -> SlotDecision {
        if let error = context.group.error { return .fail(error) }
        // From here on, `slot.build` says who builds it (an uncontended builder is recorded).
        manage(slot)
        // First what the build this resolve waited for left for it (a requester takes what its
        // handed-off build delivered, so that the slot no longer holds it).
        if let waitedOn {
            switch slot.build {
            case .failed(let builder, let error) where builder === waitedOn: return .fail(error)
            case .delivered(let builder, let built) where builder === waitedOn:
                // The requester takes it: the slot keeps no reference of its own (a weak
                // slot's instance lives as long as its holders).
                if builder.handedOffBy === context {
                    slot.build = .idle
                    builder.deliveredSlots.removeAll { $0 === slot }
                    releases.append(built)
                }
                return .read(built.value)
            default: break
            }
        }
        if slot.box.load(ordering: .acquiring) != 0, let value = slot.publishedAny() { return .read(value) }
        guard let owner = slot.build.builder else {
            // Nothing is built for a container whose shutdown has begun: a resolve that looked
            // the registration up before (and waited for a build the shutdown discarded) fails
            // here instead of running the factory for a publication that would fail.
            if let name = slot.logOwner(keepingIn: &releases)?.shutDownName {
                return .fail(context.shutDownError(key, container: name))
            }
            slot.build = .building(context)
            slot.buildFrameIndex = context.stack.count
            context.ownedSlots.append(slot)
            return .build
        }
        if owner === context {
            if let built = slot.build.built { return readIncomplete(built, by: context) }
            return .fail(context.cycleError(key))
        }
        if owner.group === context.group, let built = slot.build.built { return readIncomplete(built, by: context) }
        // A branch asking for what the factory it branched from waits on: a cycle.
        if !context.branchAncestry.isEmpty, context.isBuildingOnBranchPath(slot, by: owner) {
            return .fail(context.cycleError(key))
        }
        // A thread never waits for a resolve that may suspend (it could wait for the main
        // actor, or for the cooperative pool this thread belongs to).
        if owner.isAsync, !suspending { return .fail(requiresAsync(context, key)) }
        if var cycle = waitCycle(from: owner, to: context) {
            // Merged until the cycles left, if any, lie within one group: each merge lets the
            // members read instances built in the groups it joins.
            while true {
                releases.append(contentsOf: merge(cycle + [context]))
                guard let next = waitCycle(from: owner, to: context),
                    next.contains(where: { $0.group !== context.group })
                else { break }
                cycle = next
            }
            wakeAll()
            if let built = slot.build.built { return readIncomplete(built, by: context) }
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

    /// `.read` of an instance built by `context` or its group and not published: incomplete
    /// (a cycle in flight), so the frames of `context` reading it are built from an incomplete
    /// instance (`noteIncompleteRead`). `decide` runs on the thread or task of `context`.
    private func readIncomplete(_ built: SlotBuildState.Built, by context: ResolutionContext) -> SlotDecision {
        context.noteIncompleteRead()
        return .read(built.value)
    }

    /// What a resolve does about a slot it needs: decided by `decide`, under the lock; the
    /// caller (`acquire`, `acquireAsync`) acts on it after unlocking.
    enum SlotDecision {
        /// Use this instance: published, or built by this resolve or its group and not
        /// published (`readIncomplete`, which has marked the reader's frames).
        case read(Any)
        /// The slot is now this resolve's to build.
        case build
        /// Another resolve builds it: wait for it (a thread blocks on the coordinator's
        /// condition), then decide again.
        case wait(for: ResolutionContext)
        /// Fail: a constructor cycle, or the group already failed.
        case fail(any Error)
    }

    /// Publishes the complete instance `context` built for `slot`, which it owns, at once.
    /// Throws `.containerShutDown`, publishing nothing, when the shutdown of the slot's
    /// container has begun: for an instance with `onShutdown` hooks, decided under its
    /// container's shutdown log's lock, which the shutdown takes to begin (`publish(_:in:into:)`).
    func publish(_ slot: AnySlot, _ built: SlotBuildState.Built, by context: ResolutionContext) throws {
        try withLock { releases in
            assert(slot.build.builder === context, "ScopeGraph: a slot published by a resolve that did not own it")
            // The slot stays this resolve's when it fails: its failure (or, if a factory
            // handles the error, its finish) releases it, leaving the error for its waiters.
            if let name = slot.logOwner(keepingIn: &releases)?.shutDownName {
                built.discard(into: &releases)
                throw context.publicationShutDownError(built.entry, container: name)
            }
            let weakInstance: AnyObject?
            switch publish(built, in: slot, into: &releases) {
            case .published(let object): weakInstance = object
            case .refused(let container): throw context.publicationShutDownError(built.entry, container: container)
            }
            if let index = context.ownedSlots.lastIndex(where: { $0 === slot }) {
                releases.append(context.ownedSlots.remove(at: index))
            }
            if context.handedOffBy == nil {
                slot.build = .idle
            } else {
                // A handed-off build leaves its instance for the resolves that waited for it.
                slot.build = .delivered(context, built)
                context.deliveredSlots.append(slot)
            }
            wakeReaders(of: slot, published: weakInstance)
            wakeAll()
        }
    }

    /// Records that the owner's factory for `slot` returned `built`, an incomplete instance
    /// (published when its resolve finishes).
    func built(_ slot: AnySlot, _ built: SlotBuildState.Built, by context: ResolutionContext) {
        withLock { _ in
            assert(slot.build.builder === context, "ScopeGraph: a slot built by a resolve that did not own it")
            slot.build = .built(context, built)
            // Only members of the builder's group may read an instance that is built but not
            // published; every other waiter's decision is unchanged until it is published.
            wakeMembers(of: context.group)
        }
    }

    /// Gives up a slot whose factory failed (or whose value cannot be kept), so that others
    /// may build it.
    func abandon(_ slot: AnySlot, by context: ResolutionContext) {
        withLock { releases in
            if slot.build.builder === context {
                slot.build.built?.discard(into: &releases)
                slot.build = .idle
                wakeReaders(of: slot)
            }
            context.ownedSlots.removeAll { $0 === slot }
            wakeAll()
        }
    }

    /// Records that `context` waits for `owner`'s build of `slot`. Call with the lock held.
    func startWaiting(_ context: ResolutionContext, on owner: ResolutionContext, for slot: AnySlot, key: Key) {
        context.waitingOn = owner
        context.waitingSlot = slot
        context.waitPath = context.pathKeys + [key]
        owner.waiters += 1
        context.waitRecord = WaitRecords.begin(
            "\(WaitRecords.waiter(context)) waits for \(key.serviceKey) (path \(context.waitPath.map { $0.serviceKey.description }.joined(separator: " → "))), built by resolve #\(WaitRecords.identity(of: owner))"
        )
    }

    /// Clears `context`'s record of the wait it woke from, if any. Call with the lock held.
    func stopWaiting(_ context: ResolutionContext) {
        guard let owner = context.waitingOn else { return }
        owner.waiters -= 1
        context.waitingOn = nil
        context.waitingSlot = nil
        WaitRecords.end(context.waitRecord)
        context.waitRecord = 0
    }

    /// Runs `body` with the lock held; what it puts in `releases` is released after
    /// unlocking (an instance's or a group's last reference may go there, and a deinit may
    /// resolve).
    func withLock<R>(_ body: (inout DeferredReleases) throws -> R) rethrows -> R {
        var releases = DeferredReleases()
        #if DEBUG
        LockChecks.coordinatorLocksTakenByThisThread += 1
        #endif
        lock.lock()
        defer {
            unlockResuming()
            releases.releaseAll()
        }
        return try body(&releases)
    }

    /// A continuation to resume after unlocking (`pendingResumes`).
    enum Resumption {
        /// A task suspended in `acquireAsync` or `finishAsync`: it decides again.
        case waiter(CheckedContinuation<Void, Never>)
        /// A reader (`BuildCoordinator+Readers.swift`), with why it wakes.
        case reader(CheckedContinuation<ReaderWake, Never>, ReaderWake)

        func resume() {
            switch self {
            case .waiter(let continuation): continuation.resume()
            case .reader(let continuation, let wake): continuation.resume(returning: wake)
            }
        }
    }

    /// Releases the lock, then resumes the continuations queued while it was held.
    func unlockResuming() {
        guard !pendingResumes.isEmpty else { return lock.unlock() }
        let resumes = pendingResumes
        pendingResumes = []
        lock.unlock()
        for resumption in resumes { resumption.resume() }
    }

    /// A thread's wait for a change, with the lock held. With continuations queued, it resumes
    /// them (the lock released meanwhile) and returns without waiting, so that the caller
    /// decides again, as after any wake-up: a change it would wait for may have come then.
    func waitForChange() {
        guard pendingResumes.isEmpty else {
            unlockResuming()
            lock.lock()
            return
        }
        lock.wait()
    }

    /// Wakes every waiter, threads and tasks, to decide again. Call with the lock held; the
    /// tasks are resumed after unlocking (`pendingResumes`).
    func wakeAll() {
        lock.broadcast()
        guard !suspended.isEmpty else { return }
        for wait in suspended.values { pendingResumes.append(.waiter(wait.continuation)) }
        suspended = [:]
    }

    /// Wakes the threads waiting (they decide again) and the suspended tasks whose resolve is
    /// a member of `group`. Call with the lock held.
    func wakeMembers(of group: ResolutionGroup?) {
        lock.broadcast()
        guard let group, !suspended.isEmpty else { return }
        let woken = suspended.filter { $0.value.context.group === group }
        for (id, wait) in woken {
            suspended[id] = nil
            pendingResumes.append(.waiter(wait.continuation))
        }
    }

    /// A task suspended until the coordinator's state changes, and the resolve it runs.
    struct SuspendedWait {
        let context: ResolutionContext
        let continuation: CheckedContinuation<Void, Never>
    }
}
