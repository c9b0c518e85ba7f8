/// State that belongs to one feature's screen stack, such as a navigation history.
///
/// Registered once, in the core container, with the `perContainer` lifetime: every container a
/// resolve starts from gets its own instance, created on first use and kept there.
final class Session: Sendable {
    /// The container this session was created for (where the request started).
    let containerName: String

    /// Creates a session.
    /// - Parameter containerName: The name of the container the session belongs to.
    init(containerName: String) { self.containerName = containerName }
}
