import Synchronization

/// A reference made by the first thread that needs it and then shared, readable without a lock.
///
/// The standard `AtomicLazyReference` does the same, but its `load()` and `storeIfNil(_:)` are
/// compiled into the standard library rather than inlined, so ThreadSanitizer does not see
/// their acquire and release: every access to the object published through it is reported as
/// a race (seen in CI, `UniqueRecordTests`). This one is built on `Atomic`, whose
/// operations are inlined and so instrumented.
package struct LazyReference<Instance: AnyObject & Sendable>: ~Copyable, Sendable {
    /// Holds one retain of the published instance, from `storeIfNil` until `deinit`; `nil`
    /// until then. Never changes once set.
    private let storage = Atomic<Unmanaged<Instance>?>(nil)

    package init() {}

    deinit {
        if let stored = storage.load(ordering: .acquiring) {
            // Invariant: `storage` holds the one retain taken by the `storeIfNil` that won.
            stored.release()
        }
    }

    /// The published instance, or `nil` if none is yet.
    package func load() -> Instance? {
        // Invariant: a stored reference is retained by `storage` until `deinit`, which cannot
        // run while `self` is borrowed here, so the unretained read is safe.
        storage.load(ordering: .acquiring)?.takeUnretainedValue()
    }

    /// Publishes `desired` if nothing is published yet; returns what is published (the
    /// other thread's instance when this one lost the race, and `desired` is released).
    package func storeIfNil(_ desired: Instance) -> Instance {
        let candidate = Unmanaged.passRetained(desired)
        let (exchanged, current) = storage.compareExchange(
            expected: nil, desired: candidate, ordering: .acquiringAndReleasing)
        if exchanged { return desired }
        // Lost the race: the winner's retain stays in `storage`, ours is given back.
        candidate.release()
        assert(current != nil, "ScopeGraph: a failed first store must have found a published instance")
        return current!.takeUnretainedValue()
    }
}
