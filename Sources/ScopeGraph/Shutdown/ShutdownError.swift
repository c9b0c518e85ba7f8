/// Why `shutdown()` failed: every `onShutdown` hook that threw, with the key and container of
/// the instance it was closing. The other hooks ran all the same.
///
/// ```swift
/// do {
///     try await app.shutdown()
/// } catch let error as ShutdownError {
///     for failure in error.failures { log("\(failure.key) in \(failure.container): \(failure.error)") }
/// }
/// ```
public struct ShutdownError: Error, CustomStringConvertible {
    /// One hook that threw.
    public struct Failure: @unchecked Sendable {
        // @unchecked: `error` is the error a user hook threw; it is only read.

        /// The registration whose instance's hook threw.
        public let key: ServiceKey
        /// The name of the container the instance was cached in.
        public let container: String
        /// What the hook threw.
        public let error: any Error
    }

    /// Every hook that threw, in the order they ran.
    public let failures: [Failure]

    /// One line per failure.
    public var description: String {
        (["ShutdownError: \(failures.count) onShutdown hook(s) threw."]
            + failures.map { "  \($0.key) in '\($0.container)': \($0.error)" }).joined(separator: "\n")
    }
}

/// What `withScope(name:_:)` throws when both its body and the scope's shutdown failed.
public struct ScopeError: Error, CustomStringConvertible {
    /// What the body threw.
    public let bodyError: any Error
    /// What the scope's shutdown threw.
    public let shutdownError: ShutdownError

    /// Both errors.
    public var description: String {
        "ScopeError: the scope's body threw: \(bodyError)\nand its shutdown failed: \(shutdownError)"
    }
}
