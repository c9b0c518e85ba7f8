/// Who is building a slot's instance, and what was built. Guarded by the coordinator's lock;
/// the published instance itself lives apart, in the slot's atomic box.
enum SlotBuildState {
    /// Nobody builds (the slot is empty or published).
    case idle
    /// The factory of this resolve is running.
    case building(ResolutionContext)
    /// The factory of this resolve returned an incomplete instance (it has `onResolved` blocks,
    /// or was built from an incomplete one); it is published when the resolve (and every
    /// resolve it shares a cycle with) has finished, with its blocks run.
    case built(ResolutionContext, Built)
    /// The async resolve building it failed: the resolves that waited for that build get its
    /// error; any other takes the slot as empty and builds again.
    case failed(ResolutionContext, any Error)
    /// A handed-off build published this instance: the async resolves that waited for that
    /// build get it, even if the slot no longer holds it (its registration was removed, or a
    /// weak slot's instance died, before they looked); any other takes the slot as empty.
    /// Kept until the build's resolve ends (`BuildCoordinator.retire`), which is after the
    /// requester's: a handed-off build is a member of the requester's group.
    case delivered(ResolutionContext, Built)

    /// A built instance waiting to be published. A class, so that reading the state (the
    /// coordinator does several times per build) copies one reference instead of five fields,
    /// one of them an existential: measured, K spent about 1,600 instructions per request in
    /// those copies and their destruction.
    final class Built {
        /// The box to publish.
        let box: AnyObject
        /// For a weak slot, whose box does not keep it: the instance, kept until published.
        let object: AnyObject?
        /// The instance, for the resolves that may read it before publication.
        let value: Any
        /// The registration it was built for (for its `onShutdown` hooks).
        let entry: AnyEntry
        /// Process-wide order in which factories returned: the shutdown order, reversed.
        let sequence: Int

        init(box: AnyObject, object: AnyObject?, value: Any, entry: AnyEntry, sequence: Int) {
            self.box = box
            self.object = object
            self.value = value
            self.entry = entry
            self.sequence = sequence
        }

        /// Hands what a discarded build holds to `releases`, for release after unlocking: the
        /// box, a weak slot's instance, and the registration (removed or replaced meanwhile,
        /// this may be its last reference, and its deinit releases the factory's captures).
        func discard(into releases: inout DeferredReleases) {
            releases.append(box)
            if let object { releases.append(object) }
            releases.append(entry)
        }
    }

    /// The resolve building or holding the instance.
    var builder: ResolutionContext? {
        switch self {
        case .idle, .failed, .delivered: nil
        case .building(let builder), .built(let builder, _): builder
        }
    }

    /// The built instance, if the factory returned.
    var built: Built? {
        if case .built(_, let built) = self { return built }
        return nil
    }
}
