import Synchronization

/// What a registration (or a snapshot) knows of its container: the container, weakly, and
/// its name (kept for errors after the container is gone). One per container, shared by all
/// its registrations, so that a registration holds one strong reference instead of a weak one
/// and a copy of the name.
@usableFromInline
package final class OwnerLink: Sendable {
    /// The container, or `nil` once it is deallocated.
    package weak let container: Container?
    package let name: String

    init(_ container: Container) {
        self.container = container
        self.name = container.name
    }
}

extension Container {
    /// This container's `OwnerLink`, made by its first registration or snapshot (a container that
    /// registers nothing, such as a request scope, never pays for one). Made once: a thread
    /// that loses the race drops its own.
    package var ownerLink: OwnerLink {
        let bits = ownerLinkBits.load(ordering: .acquiring)
        if bits != 0 { return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue() }
        return makeOwnerLink()
    }

    /// `ownerLink`, unretained: without a retain and a release around it, since this
    /// container keeps its link for as long as it lives.
    var unretainedOwnerLink: Unmanaged<OwnerLink> {
        let bits = ownerLinkBits.load(ordering: .acquiring)
        if bits != 0 { return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!) }
        return Unmanaged.passUnretained(makeOwnerLink())
    }

    @inline(never)
    private func makeOwnerLink() -> OwnerLink {
        let made = Unmanaged.passRetained(OwnerLink(self))
        let (exchanged, current) = ownerLinkBits.compareExchange(
            expected: 0, desired: Int(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged { return made.takeUnretainedValue() }
        made.release()
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue()
    }

    /// Releases the link made by `ownerLink`, if any. Called by `deinit`.
    func releaseOwnerLink() {
        let bits = ownerLinkBits.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<OwnerLink>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }
}
