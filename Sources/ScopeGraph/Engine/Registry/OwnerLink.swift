import Synchronization

/// What a registration knows of the container that owns it: the container, weakly, and its
/// name (for errors after it is gone). One per container, shared by its registrations.
package final class OwnerLink: Sendable {
    /// The owning container, or `nil` once it is deallocated.
    package weak let container: Container?
    /// The owning container's name.
    package let name: String

    init(_ container: Container) {
        self.container = container
        self.name = container.name
    }
}

extension Container {
    /// This container's link for its registrations, made on first use (a container that
    /// registers nothing, such as a request scope, never makes one).
    package var ownerLink: OwnerLink {
        if let link = lazyOwnerLink.load() { return link }
        return lazyOwnerLink.storeIfNil(OwnerLink(self))
    }
}
