/// The cached instances of one container (or override scope) whose registrations have
/// `onShutdown` hooks, in the order their factories returned: what `shutdown()` closes, newest
/// first.
///
/// A record names its instance by the sequence of the build that made it, and holds no
/// reference to it: an instance released before shutdown (removed, replaced, restored, or a
/// weak singleton that died) is neither kept alive for its hook nor shut down.
final class ShutdownLog: Sendable {
    /// One cached instance with hooks.
    struct Record: Sendable {
        let entry: AnyEntry
        /// Process-wide order in which factories returned (dependencies first), and the
        /// identity of the box that publishes the instance (`PublishedBox.sequence`).
        let sequence: Int
        /// The slot that published the instance: it is still cached while the slot's box is
        /// the one of this record's build.
        let slot: AnySlot
    }

    private struct State {
        var records: [Record] = []
        /// Set when the owner's shutdown begins: nothing more is recorded, and a resolve that
        /// would publish an instance with hooks here fails instead (`record`'s callers).
        var isClosed = false
    }

    private let state = Locked(State())

    /// Records a newly published instance; false (and nothing recorded) once the log is
    /// closed, or when `isShutDown()` says the owner's shutdown (or an ancestor's) has begun,
    /// so that its publication must not happen. `publish` runs in the same critical section,
    /// after recording: an uncontended build publishes its instance there, so that the
    /// shutdown that closes the log finds it either published (and closes it) or not at all
    /// (and the build fails).
    func record(_ record: Record, unless isShutDown: () -> Bool = { false }, publishing publish: () -> Void = {})
        -> Bool
    {
        state.withLock { state in
            guard !state.isClosed, !isShutDown() else { return false }
            // Released instances leave records behind: dropped as the log grows.
            if state.records.count >= 64, state.records.count.isMultiple(of: 64) {
                state.records.removeAll { !$0.isLive }
            }
            state.records.append(record)
            publish()
            return true
        }
    }

    /// Records an instance published earlier, unless the log is closed or has it already
    /// (its publication may have recorded it).
    func recordIfAbsent(_ record: Record) {
        state.withLock { state in
            guard !state.isClosed else { return }
            guard !state.records.contains(where: { $0.slot === record.slot && $0.sequence == record.sequence }) else {
                return
            }
            state.records.append(record)
        }
    }

    /// Whether the log is closed (the owner's shutdown has begun).
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Closes the log and returns what it recorded, newest first; `marking` runs first, in the
    /// same critical section (the owner's shutdown sets its flag there, so that `record`'s
    /// `isShutDown` check and this close are one step for a publication).
    func close(marking: () -> Void = {}) -> [Record] {
        state.withLock { state in
            marking()
            state.isClosed = true
            return Self.takeNewestFirst(&state.records)
        }
    }

    /// What was recorded, newest first, emptying the log but leaving it open (an override
    /// scope's log, when the scope ends).
    func drain() -> [Record] {
        state.withLock { Self.takeNewestFirst(&$0.records) }
    }

    /// Moves `records` out, leaving it empty, and sorts them in place, newest first (not
    /// `sorted`, which copies every record).
    private static func takeNewestFirst(_ records: inout [Record]) -> [Record] {
        var taken: [Record] = []
        swap(&taken, &records)
        taken.sort { $0.sequence > $1.sequence }
        return taken
    }
}

/// What owns a shutdown log: a container, or an override scope that caches instances itself.
protocol ShutdownLogOwner: AnyObject, Sendable {
    var shutdownLog: ShutdownLog { get }
    /// The name of the container, once its shutdown (or an ancestor's) has begun; `nil` while
    /// it runs, and always for an override scope. Nothing is built for a shut-down owner.
    var shutDownName: String? { get }
}

extension ShutdownLog.Record {
    /// The box of the instance, retained, when its slot still publishes it (the hooks read
    /// the instance out of it: `Registration.onShutdown`). Call without locks held: the
    /// caller's release of the box may be the instance's last.
    var liveBox: AnyObject? {
        guard let box = Reclamation.read({ slot.publishedBox() }) else { return nil }
        return PublishedBox.sequence(of: box) == sequence ? box : nil
    }

    /// Whether its slot still publishes the instance; retains nothing (so it may be asked
    /// under a lock).
    var isLive: Bool { Reclamation.read { slot.publishes(sequence: sequence) } }
}
