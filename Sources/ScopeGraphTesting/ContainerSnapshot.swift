import ScopeGraph

/// A container's registrations and collaboration links at one moment, to put back later with
/// `Container.restore(_:)`.
///
/// Taking a snapshot is cheap: it shares the registrations (no factory runs, no instance is
/// copied or kept alive). A snapshot is `Sendable` and can be restored any number of times,
/// but only into the container it was taken from.
///
/// ```swift
/// let snapshot = container.snapshot()
/// container.register(Clock.self) { _ in FixedClock() }
/// // ...
/// container.restore(snapshot)   // the real Clock registration is back, caches are empty
/// ```
public struct ContainerSnapshot: Sendable {
    let state: CapturedState
    /// The container it was taken from, held weakly so a snapshot never keeps it alive, and
    /// its name.
    let source: OwnerLink

    /// The name of the container the snapshot was taken from.
    public var containerName: String { source.name }
}

extension Container {
    /// Captures this container's registrations and collaboration links.
    ///
    /// Only this container is captured: its children, its collaborators and its parent keep
    /// their own state. Cached instances are not part of a snapshot.
    ///
    /// ```swift
    /// let snapshot = container.snapshot()
    /// defer { container.restore(snapshot) }
    /// ```
    /// - Returns: A cheap, `Sendable` value for `restore(_:)`.
    public func snapshot() -> ContainerSnapshot {
        ContainerSnapshot(state: captureState(), source: ownerLink)
    }

    /// Brings this container back to exactly the registrations and collaboration links of
    /// `snapshot`, whatever was replaced, removed or added since, and empties this container's
    /// caches (singleton, weak, eager and `perContainer` instances), so the next resolve builds
    /// afresh.
    ///
    /// Registrations keep their handles: a `Registration` returned before the snapshot still
    /// identifies the restored registration for `remove(_:)`.
    ///
    /// ```swift
    /// let snapshot = container.snapshot()
    /// container.register(API.self) { _ in FakeAPI() }   // replaces the real API
    /// container.restore(snapshot)                       // the real API again
    /// ```
    /// - Parameter snapshot: A snapshot taken from this container by `snapshot()`. Restoring a
    ///   snapshot of another container stops the program (`preconditionFailure`).
    public func restore(_ snapshot: ContainerSnapshot) {
        guard snapshot.source.container === self else {
            preconditionFailure(
                "ScopeGraphTesting: restore(_:) was given a snapshot of container '\(snapshot.containerName)', not of '\(name)'; restore a snapshot into the container it was taken from"
            )
        }
        restoreState(snapshot.state)
    }
}
