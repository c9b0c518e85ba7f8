/// Starts `operation` in an unstructured task of its own, so the caller's cancellation never
/// reaches it (a shutdown, a handed-off build). Where the platform has `Task.immediate`, the task
/// starts on the calling thread and runs there until it first suspends: work that does not
/// suspend pays no thread hop, and work that does starts at once instead of queueing behind the
/// tasks already scheduled. Elsewhere (Apple platforms before their 26 releases) it is
/// scheduled as a plain `Task`.
func startImmediateTask(_ operation: sending @escaping @isolated(any) () async -> Void) {
    if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
        Task.immediate(operation: operation)
    } else {
        Task(operation: operation)
    }
}
