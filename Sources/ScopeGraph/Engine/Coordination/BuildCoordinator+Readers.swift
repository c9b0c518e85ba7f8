/// Readers: top-level async requests that only wait for another resolve's build of a cached
/// instance and then read it (`resolveAsync`'s shortcut, `ResolutionContext+Shortcut.swift`).
///
/// A reader holds no slot and belongs to no resolve, so nothing ever waits for it: it cannot
/// be part of a cycle of waits, and it needs no `ResolutionContext`, no `ResolutionGroup` and
/// nothing to finish (`finish`). It suspends on the slot itself and is woken only when the
/// build it waited for ends (`wakeReaders(of:)`), not by every change of the coordinator's
/// state, so a thousand tasks awaiting one build are each resumed once.
extension BuildCoordinator {
    /// A task suspended until a slot's build ends.
    struct SlotReader {
        let waiter: Waiter
        let continuation: CheckedContinuation<ReaderWake, Never>
    }

    /// Why a reader's wait for a build ended, and so what it does next: decided under the lock,
    /// when the build ends (`wakeReaders(of:)`), when the reader comes (`notBuilding`,
    /// `cancelled`) or when its task is cancelled; `awaitBuild(of:)` returns it.
    enum ReaderWake {
        /// The build ended (published, given up or discarded): look again.
        case lookAgain
        /// The build published this instance in a weak slot: the reader takes it from here,
        /// held strongly (the slot does not keep it alive until the reader looks again).
        case published(Carried<AnyObject>)
        /// Nobody was building the slot when the reader came.
        case notBuilding
        /// The async build it waited for failed: the error every waiter of that build gets.
        case failed(any Error)
        /// The reader's task was cancelled (the build goes on).
        case cancelled
    }

    /// Suspends until the build of `slot` in progress ends; returns at once when nobody is
    /// building it or the calling task is cancelled. The caller throws what `.failed` and
    /// `.cancelled` say.
    func awaitBuild(of slot: AnySlot) async -> ReaderWake {
        let waiter = makeWaiter()
        var record: UInt64 = 0
        defer { WaitRecords.end(record) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ReaderWake, Never>) in
                let immediate: ReaderWake? = withLock { _ in
                    if waiter.isCancelled { return .cancelled }
                    manage(slot)
                    guard let builder = slot.build.builder else { return .notBuilding }
                    slot.readers.append(SlotReader(waiter: waiter, continuation: continuation))
                    record = WaitRecords.begin(
                        "a task waits, as a reader, for a build by resolve #\(WaitRecords.identity(of: builder))")
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            withLock { _ in
                waiter.isCancelled = true
                guard let index = slot.readers.firstIndex(where: { $0.waiter === waiter }) else { return }
                pendingResumes.append(.reader(slot.readers.remove(at: index).continuation, .cancelled))
            }
        }
    }

    /// Whether a resolve is building `slot` now (a reader would wait for it).
    func isBuilding(_ slot: AnySlot) -> Bool {
        withLock { _ in
            manage(slot)
            return slot.build.builder != nil
        }
    }

    /// Wakes the readers of `slot` once its build has ended: its state is no longer
    /// `building` or `built` (published, idle, or failed with the error they get). Call with
    /// the lock held, after the slot's new state (and published box) is in place; they are
    /// resumed after unlocking (`pendingResumes`). `published` is the instance a weak slot
    /// just published, which nothing else may keep alive until they look again: they get it.
    func wakeReaders(of slot: AnySlot, published: AnyObject? = nil) {
        guard !slot.readers.isEmpty else { return }
        assert(slot.build.builder == nil, "ScopeGraph: readers woken while their build goes on")
        let wake: ReaderWake
        if case .failed(_, let error) = slot.build {
            wake = .failed(error)
        } else if let published {
            wake = .published(Carried(published))
        } else {
            wake = .lookAgain
        }
        let readers = slot.readers
        slot.readers = []
        for reader in readers { pendingResumes.append(.reader(reader.continuation, wake)) }
    }

    /// A new waiter, with an identity no other waiter has.
    func makeWaiter() -> Waiter {
        Waiter(id: waiterSerials.add(1, ordering: .relaxed).newValue)
    }
}
