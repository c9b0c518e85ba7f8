import Synchronization

/// `onResolved` blocks: queued when an instance's factory returns, run after the outermost
/// factory of the top-level resolve has returned, in the order the factories finished.
extension ResolutionContext {
    /// The blocks of one new instance, waiting to run.
    struct PendingBlocks {
        /// Process-wide order in which factories finished, so a group of resolves sharing a
        /// cycle runs all its blocks in one order.
        let sequence: Int
        let key: Key
        let entry: AnyEntry
        /// The instances whose blocks led to this one, oldest first (see `blockLineage`).
        let lineage: [LineageLink]
        /// Built, from the running block (if any), through new `unique` instances only.
        let reachedThroughUniqueOnly: Bool
        /// The keys that were being built when this instance's factory returned, from the
        /// top-level request down (not including `key`): the path of its blocks' errors.
        let ancestors: [Key]
        let run: () throws -> Void
    }

    /// One instance whose blocks led to the running block.
    struct LineageLink {
        let entry: UInt64
        let key: Key
        /// The instance of a `unique` registration: its blocks run again for each new one.
        let isUnique: Bool
        /// Reached from the previous link's block through new `unique` instances only. A
        /// shared instance on the way (`graph` or cached) would be found again the next time
        /// round, which closes the chain.
        let reachedThroughUniqueOnly: Bool
    }

    private static let blockSequence = Atomic<Int>(0)

    /// Queues the blocks of a new instance of `entry`.
    func queueBlocks(of entry: AnyEntry, key: Key, root: Container, instance: Any) {
        let blocks = entry.onResolvedBlocks
        let resolver = Resolver(container: root, context: self)
        pending.append(
            PendingBlocks(
                sequence: Self.blockSequence.add(1, ordering: .relaxed).newValue, key: key, entry: entry,
                lineage: blockLineage, reachedThroughUniqueOnly: onlyNewUniqueInstancesSinceBlock,
                ancestors: ownPathKeys
            ) {
                for block in blocks { try block(resolver, instance) }
            })
    }

    /// The cycle error when a new `unique` instance of `entry` would restart blocks forever:
    /// the chain since the earlier instance of this entry is all new `unique` instances (the
    /// instances whose blocks led here, and every construction between them), so each new
    /// instance's blocks would create the next one again.
    func endlessBlockChain(_ entry: AnyEntry, key: Key) -> ResolutionError? {
        guard !blockLineage.isEmpty, entry.lifetime == .unique,
            let earlier = blockLineage.lastIndex(where: { $0.entry == entry.serial }),
            blockLineage[earlier...].allSatisfy({ $0.isUnique }),
            blockLineage[(earlier + 1)...].allSatisfy({ $0.reachedThroughUniqueOnly }),
            onlyNewUniqueInstancesSinceBlock
        else { return nil }
        let chain = blockLineage.map(\.key) + [key]
        return ResolutionError(
            kind: .circularDependency, key: key.serviceKey, path: chain.map(\.serviceKey),
            suggestions: [
                "the onResolved blocks of these instances keep creating new unique instances of each other; give one of them a graph or cached lifetime so the cycle closes on an existing instance"
            ])
    }

    /// True when every construction in progress since the running block's frame is a new
    /// `unique` instance (and when no block runs).
    private var onlyNewUniqueInstancesSinceBlock: Bool {
        blockFrameDepth < 0 || stack[blockFrameDepth...].allSatisfy { $0.entry.lifetime == .unique }
    }

    /// Runs the `onResolved` blocks of new instances, oldest first, including those of
    /// instances that blocks themselves create. They stay in `pending`: the caller drops them
    /// once the resolve is unbound from the thread (an instance may go with its blocks, and a
    /// deinit that resolves must not join this resolve).
    func runPendingBlocks() throws {
        var index = 0
        while index < pending.count {
            let item = pending[index]
            index += 1
            try run(item)
        }
    }

    /// Hands over the queued blocks (to the thread running a group's blocks).
    func takePending() -> [PendingBlocks] {
        defer { pending.removeAll() }
        return pending
    }

    /// Runs one instance's blocks with its frame on the stack. Call on a thread bound to this
    /// context.
    func run(_ item: PendingBlocks) throws {
        stack.append(Frame(requestedKey: item.key, entry: item.entry, identity: nil))
        blockLineage =
            item.lineage + [
                LineageLink(
                    entry: item.entry.serial, key: item.key, isUnique: item.entry.lifetime == .unique,
                    reachedThroughUniqueOnly: item.reachedThroughUniqueOnly)
            ]
        let outerPath = blockPath
        let outerDepth = blockFrameDepth
        blockPath = item.ancestors
        blockFrameDepth = stack.count
        defer {
            stack.removeLast()
            incompleteDepth = min(incompleteDepth, stack.count)
            blockLineage = []
            blockPath = outerPath
            blockFrameDepth = outerDepth
        }
        do {
            try item.run()
        } catch let failure as ResolutionError {
            throw failure
        } catch {
            throw frameError(.factoryFailed(error), item.key)
        }
    }
}
