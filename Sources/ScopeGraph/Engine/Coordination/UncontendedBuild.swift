import Synchronization

// Uncontended builds: a cached instance that nobody else wants is built without the
// coordinator's lock (Docs/Architecture.md, "Uncontended builds").
//
// A slot's `claim` word says who governs its build:
//
// | `claim` | meaning |
// |---|---|
// | 0 | nobody builds it; the next build may be uncontended |
// | `AnySlot.managed` | the coordinator's `build` state governs it, for good |
// | a context's address | that resolve builds it alone; `build` is untouched (`.idle`) |
//
// A resolve claims a free slot (0 to its address), runs the factory, publishes the box and
// gives the claim back (its address to 0): no lock, no allocation beyond the box. Whoever
// else needs the slot meanwhile (a waiter, a reader, the builder's own cycle) goes to the
// coordinator, which first makes the slot managed (`manage`): under its lock it swaps the
// builder's address for `managed` and records that resolve as the slot's builder, as if it
// had claimed the slot there. The builder's own give-back then fails, and it ends its build
// under the lock as a managed build (`endPromoted`, `abandon`), waking who waits.

extension AnySlot {
    /// `claim`'s value once the coordinator governs the slot.
    static let managed = 1

    /// `context`'s claim word: its address.
    fileprivate static func word(of context: ResolutionContext) -> Int {
        Int(bitPattern: Unmanaged.passUnretained(context).toOpaque())
    }

    /// Claims this slot for `context` to build without the coordinator: true when nobody
    /// builds it, nothing is published and its builds were never contended.
    func claimUncontended(by context: ResolutionContext) -> Bool {
        #if DEBUG
        context.uncontendedBuilds.add(1, ordering: .relaxed)
        #endif
        guard
            claim.compareExchange(expected: 0, desired: Self.word(of: context), ordering: .sequentiallyConsistent)
                .exchanged
        else {
            #if DEBUG
            context.uncontendedBuilds.subtract(1, ordering: .relaxed)
            #endif
            return false
        }
        // Published by another resolve between the caller's read and the claim: given back.
        guard box.load(ordering: .sequentiallyConsistent) == 0 else {
            context.endUncontendedBuild(self, failed: true)
            return false
        }
        return true
    }

    /// Gives back `context`'s claim; false when the coordinator made the slot managed
    /// meanwhile (the build is then a managed one, to end under its lock).
    fileprivate func giveBack(by context: ResolutionContext) -> Bool {
        claim.compareExchange(expected: Self.word(of: context), desired: 0, ordering: .sequentiallyConsistent).exchanged
    }
}

extension ResolutionContext {
    /// Whether this resolve may build without the coordinator: a synchronous resolve (or the
    /// synchronous first request of `resolveAsync`, which never waits) that has not taken
    /// part in coordination. An async resolve's builds may be asked for by its factory's child
    /// tasks, which the coordinator tells apart from cycles.
    var mayBuildUncontended: Bool {
        !usedCoordinator && (!isAsync || declinesWaitingAtTop)
    }

    /// Builds `entry`'s instance in `slot`, which this resolve claimed (`claimUncontended`),
    /// and publishes it when it is complete; an incomplete one (blocks, or built from an
    /// incomplete instance) is handed to the coordinator, as every incomplete instance is.
    func buildUncontended<T>(_ entry: Entry<T>, for request: Request, in slot: Slot<T>, owner root: Container)
        throws -> T
    {
        let value: T
        do {
            value = try construct(entry, request, owner: root)
        } catch {
            endUncontendedBuild(slot, failed: true)
            throw error
        }
        guard !lastConstructedIsIncomplete else {
            BuildCoordinator.shared.adopt(slot, by: self)
            #if DEBUG
            uncontendedBuilds.subtract(1, ordering: .relaxed)
            #endif
            try keepBuilt(value, of: entry, in: slot)
            return value
        }
        let sequence = Self.buildSequence.add(1, ordering: .relaxed).newValue
        guard let made = slot.makeBox(value, sequence: sequence) else {
            // A value type in a weak slot: kept nowhere (see `keepBuilt`).
            endUncontendedBuild(slot, failed: true)
            return value
        }
        var releases = DeferredReleases()
        defer { releases.releaseAll() }
        if entry.hasShutdownHooks, let logOwner = slot.logOwner(keepingIn: &releases) {
            // Recorded and published in one critical section of the log, which a shutdown
            // closes: before, the shutdown closes this instance; after, the build fails.
            let record = ShutdownLog.Record(entry: entry, sequence: sequence, slot: slot)
            let published = logOwner.shutdownLog.record(
                record, unless: { logOwner.shutDownName != nil },
                publishing: { slot.publish(made.box, into: &releases) })
            guard published else {
                endUncontendedBuild(slot, failed: true)
                throw publicationShutDownError(entry, container: logOwner.shutDownName ?? "")
            }
            endUncontendedBuild(slot, failed: false, published: made.object)
            return value
        }
        // Checked without a lock: a shutdown that begins after this look finds the instance
        // published, and has no hook to run for it.
        if root.isShutDown {
            endUncontendedBuild(slot, failed: true)
            throw publicationShutDownError(entry, container: root.name)
        }
        slot.publish(made.box, into: &releases)
        endUncontendedBuild(slot, failed: false, published: made.object)
        // A first `onShutdown` hook added meanwhile recorded what it found published; this
        // instance may have come after its look (both orders sequentially consistent).
        if entry.hasShutdownHooksNow {
            BuildCoordinator.shared.withLock { releases in entry.recordPublishedInstance(of: slot, into: &releases) }
        }
        return value
    }

    /// Ends this resolve's uncontended build of `slot` (published, or given up when `failed`):
    /// gives the claim back, or, if the slot became managed meanwhile, ends it as a managed
    /// build under the coordinator's lock.
    func endUncontendedBuild(_ slot: AnySlot, failed: Bool, published object: AnyObject? = nil) {
        #if DEBUG
        defer { uncontendedBuilds.subtract(1, ordering: .relaxed) }
        #endif
        if slot.giveBack(by: self) { return }
        usedCoordinator = true
        if failed {
            BuildCoordinator.shared.abandon(slot, by: self)
        } else {
            BuildCoordinator.shared.endPromoted(slot, by: self, published: object)
        }
    }
}

extension BuildCoordinator {
    /// Makes `slot` managed, so that its `build` state says who builds it. Call with the lock
    /// held, before reading that state for a slot this resolve does not build itself.
    func manage(_ slot: AnySlot) {
        while true {
            let word = slot.claim.load(ordering: .sequentiallyConsistent)
            if word == AnySlot.managed { return }
            guard
                slot.claim.compareExchange(expected: word, desired: AnySlot.managed, ordering: .sequentiallyConsistent)
                    .exchanged
            else { continue }
            guard word != 0 else { return }
            // Invariant: a claim word other than 0 and `managed` is the address of the context
            // building the slot uncontended, and that context is alive: its resolve holds it
            // until the claim is given back, and that give-back now fails, so it ends the build
            // under this lock (`endUncontendedBuild`), which this thread holds.
            let owner = Unmanaged<ResolutionContext>.fromOpaque(UnsafeRawPointer(bitPattern: word)!)
                .takeUnretainedValue()
            #if DEBUG
            assert(
                owner.uncontendedBuilds.load(ordering: .relaxed) > 0,
                "ScopeGraph: a slot claimed by a resolve that builds nothing uncontended")
            #endif
            slot.build = .building(owner)
            // Its frame is not known here; only an async resolve's is ever read
            // (`isBuildingOnBranchPath`), and async resolves never build uncontended.
            slot.buildFrameIndex = 0
            owner.ownedSlots.append(slot)
            return
        }
    }

    /// Makes the slot `context` claimed a managed build of its own (its instance is
    /// incomplete: published with the resolve, `built`).
    func adopt(_ slot: AnySlot, by context: ResolutionContext) {
        context.usedCoordinator = true
        withLock { _ in
            joinOwnGroup(context)
            manage(slot)
            assert(slot.build.builder === context, "ScopeGraph: adopted a slot another resolve builds")
        }
    }

    /// Ends the uncontended build of `slot` by `context`, made managed meanwhile, whose box is
    /// published: the slot is idle again and its waiters and readers wake. `object` is a weak
    /// slot's instance, which the readers get.
    func endPromoted(_ slot: AnySlot, by context: ResolutionContext, published object: AnyObject?) {
        withLock { releases in
            assert(slot.build.builder === context, "ScopeGraph: a slot published by a resolve that did not own it")
            slot.build = .idle
            if let index = context.ownedSlots.lastIndex(where: { $0 === slot }) {
                releases.append(context.ownedSlots.remove(at: index))
            }
            wakeReaders(of: slot, published: object)
            wakeAll()
        }
    }
}
