import Synchronization

/// The state of one top-level resolve: the frames being built, the `graph` instances, the new
/// instances whose `onResolved` blocks are pending, and the cache slots it is building.
///
/// The context is explicit: the `Resolver` a factory receives carries it, so a dependency
/// resolved through it joins this resolve. A thread-local (`ThreadState.context`) also points
/// to it while it runs, for the one case the contract needs: a `container.resolve` called
/// directly inside a synchronous factory joins the resolve on that thread. The override scope
/// is not part of the context: each request reads the scope its task sees (so a scope entered
/// inside a factory applies to what that factory resolves).
///
/// Cross-thread coordination (slot ownership, waiting, groups) goes through `BuildCoordinator`.
@usableFromInline
final class ResolutionContext: @unchecked Sendable {
    // @unchecked: the fields in the first group are touched only by the thread running the
    // resolve (or, while it waits for its group, by the thread running the group's blocks, the
    // coordinator's lock ordering the hand-over); those in the second group only with
    // `BuildCoordinator.shared`'s lock held. Both groups skip the dynamic exclusivity check
    // (`@exclusivity(unchecked)`): that confinement already excludes overlapping accesses, the
    // context's own code never overlaps two accesses to one field, and the checks would cost
    // on every resolve. ThreadSanitizer checks the confinement in CI.

    // Owned by the resolving thread.
    @exclusivity(unchecked) var stack: [Frame] = []
    /// The `graph` instances this resolve holds, by registration and starting container.
    let graph = SmallMap<GraphKey, Any>()
    @exclusivity(unchecked) var pending: [PendingBlocks] = []
    /// Set once this context has taken part in cross-thread coordination: other threads may
    /// then reference it, so it is reused only once none does (`takeSpare`).
    @exclusivity(unchecked) var usedCoordinator = false
    /// Publication (`ResolutionContext+Instances.swift`): every frame below this depth is
    /// building an instance from an incomplete one (its factory read an instance whose blocks
    /// have not run, or that was built from such an instance), so it is incomplete too.
    @exclusivity(unchecked) var incompleteDepth = 0
    /// Whether the instance the last `leaveConstruction` finished is incomplete.
    @exclusivity(unchecked) var lastConstructedIsIncomplete = false
    /// Whether this resolve has read or made an incomplete instance (a branch's parent is then
    /// built from it: `BranchPoint.readIncomplete`).
    @exclusivity(unchecked) var sawIncomplete = false
    /// The `graph` instances of this resolve that are incomplete (rare: kept apart so that
    /// reading a complete one checks only that this is empty).
    @exclusivity(unchecked) var incompleteGraph: [GraphKey] = []
    /// The registration whose factory returned last, and at which depth, for observers.
    @exclusivity(unchecked) var lastConstructed: UInt64?
    @exclusivity(unchecked) var lastConstructedDepth = -1
    /// While a block runs: the chain of instances whose blocks led to it, itself last (see
    /// `enterConstruction`).
    @exclusivity(unchecked) var blockLineage: [LineageLink] = []
    /// While a block runs: the keys that were being built when its instance's factory
    /// returned, which errors put before the stack's.
    @exclusivity(unchecked) var blockPath: [Key] = []
    /// While a block runs: the depth of its frame, so that the stack is this deep exactly for
    /// the block's own requests; -1 otherwise.
    @exclusivity(unchecked) var blockFrameDepth = -1
    /// Set for the resolves of `resolveAsync` (and the builds they hand off): they may suspend,
    /// so a synchronous resolve never waits for one of their slots.
    @exclusivity(unchecked) var isAsync = false
    /// Set by `resolveAsync`'s shortcut while its top-level request runs synchronously: when
    /// that request's slot is being built by another resolve, `acquire` throws
    /// `BuildCoordinator.DeclinedWait` instead of blocking the thread (a task must suspend).
    @exclusivity(unchecked) var declinesWaitingAtTop = false
    /// Set when a `Provider` or `Lazy` made in this resolve references it (weakly): the thread
    /// does not keep it for reuse. A weakly referenced object has a side table for the rest of
    /// its life, which LeakSanitizer reports as leaked when a spare outlives the value (the
    /// object's pointer to its side table is encoded); and a kept value would find this
    /// context running again in a later, unrelated resolve.
    @exclusivity(unchecked) var isWeaklyReferenced = false
    /// For an async resolve: the task running it (`withUnsafeCurrentTask`'s identity), while
    /// it runs; a resolver used in another task starts a resolve of its own there. That task
    /// is alive while the resolve runs, so no other running task has its identity.
    /// Atomic (0 for none): a resolver used in another task reads it.
    let ownerTask = Atomic<Int>(0)
    /// For a build handed off by another resolve: the keys that resolve was building, which
    /// come first in this resolve's paths.
    @exclusivity(unchecked) var inheritedPath: [Key] = []
    /// For a branch (`ResolutionContext+Branches.swift`): the uncached registrations being
    /// built on the path it branched from, and the resolves on that path.
    @exclusivity(unchecked) var inheritedIdentities: [UInt64] = []
    @exclusivity(unchecked) var branchAncestry: [BranchPoint] = []
    /// For a branch: the factory it branched from and that factory's depth, which observers
    /// see as the dependent and depth of the branch's top requests.
    @exclusivity(unchecked) var inheritedDependent: AnyEntry?
    @exclusivity(unchecked) var inheritedDepth = 0
    /// Set when a request from another task joined this resolve's group as a branch: the
    /// resolve then ends with the group's finish, which publishes the branch's instances too.
    let hasBranches = Atomic<Bool>(false)
    /// Where the top-level request started, for suggestions in errors. Unretained (a retain
    /// of a weakly referenced object takes the slow path, on every resolve): the caller of the
    /// top-level resolve holds that container until the resolve ends, and this is cleared then.
    @exclusivity(unchecked) var topLevelStart: Unmanaged<Container>?

    #if DEBUG
    /// For the debug check of the thread's unretained binding (`ThreadState.boundContext`).
    let liveness = DebugLiveness()
    deinit { liveness.end() }
    /// How many slots this resolve has claimed to build uncontended and not given back, for
    /// the debug check of `BuildCoordinator.manage`.
    let uncontendedBuilds = Atomic<Int>(0)
    #endif

    // Guarded by the coordinator's lock.
    @exclusivity(unchecked) var group: ResolutionGroup!
    /// The emptied group of an earlier resolve, for the next one (`BuildCoordinator.retire`).
    @exclusivity(unchecked) var spareGroup: ResolutionGroup?
    @exclusivity(unchecked) var waitingOn: ResolutionContext?
    @exclusivity(unchecked) var waitingSlot: AnySlot?
    @exclusivity(unchecked) var waitPath: [Key] = []
    @exclusivity(unchecked) var isDone = false
    @exclusivity(unchecked) var ownedSlots: [AnySlot] = []
    /// For a handed-off build: the slots whose instance it published and left for the
    /// resolves that waited for it (`SlotBuildState.delivered`), until it retires.
    @exclusivity(unchecked) var deliveredSlots: [AnySlot] = []
    /// The branches that joined this resolve from other tasks (`BuildCoordinator.open`): while
    /// this resolve waits on nothing here, its factory may be awaiting them (`waitCycle`).
    @exclusivity(unchecked) var branches: [ResolutionContext] = []
    /// How many contexts wait for a slot this one builds.
    @exclusivity(unchecked) var waiters = 0
    /// For a handed-off build: the resolve that handed it off (see `BuildCoordinator.handOff`).
    @exclusivity(unchecked) var handedOffBy: ResolutionContext?
    /// The record of the wait for a build this resolve is in (`WaitRecords`), 0 for none.
    @exclusivity(unchecked) var waitRecord: UInt64 = 0

    /// One construction or block in progress.
    struct Frame {
        /// The key as requested, when it differs from the entry's own (a forwarded type).
        let requestedKey: Key?
        let entry: AnyEntry
        var key: Key { requestedKey ?? entry.key }
        /// The registration's serial, for uncached constructions (cycles are detected on
        /// them); cached ones are detected by slot, blocks are not detected.
        let identity: UInt64?
    }

    /// What a `graph` instance is shared by within one top-level resolve: its registration and
    /// the container the requests for it start from. An owner-rooted factory asks from the
    /// owner, so it never gets an instance built from a child's view.
    struct GraphKey: Hashable {
        let entry: UInt64
        let start: UInt64
    }

    /// The current thread's resolve, if one is running.
    static var current: ResolutionContext? { ThreadState.current.resolveInProgress() }

    /// The path of the key being built, from the top-level request down: the stack's keys,
    /// after the path of the instance whose block is running, if one is.
    var pathKeys: [Key] { inheritedPath.isEmpty ? ownPathKeys : inheritedPath + ownPathKeys }

    /// `pathKeys` without the keys inherited from the resolve that handed a build off.
    var ownPathKeys: [Key] { blockPath.isEmpty ? stack.map(\.key) : blockPath + stack.map(\.key) }
}

/// A group of resolves that share a cycle across threads: they read each other's built but
/// unpublished instances, publish together, and fail together. Only touched with the
/// coordinator's lock held, which makes every access exclusive (so the dynamic checks are off).
final class ResolutionGroup {
    @exclusivity(unchecked) var members: [ResolutionContext]
    @exclusivity(unchecked) var error: (any Error)?
    @exclusivity(unchecked) var published = false
    /// How many members' threads are running blocks of this group.
    @exclusivity(unchecked) var runningBlocks = 0
    init(_ member: ResolutionContext) { members = [member] }
}
