internal import Dispatch
internal import ScopeGraph
package import Testing

/// Waits for `work`, running in a new task, for at most `seconds` × `watchdogScale` from when it
/// starts (and ten times that in all); records an issue and returns `nil` if it has not finished
/// by then (the watchdog of the async concurrency tests of both test targets). No thread blocks
/// while waiting: a timer resumes the wait if the work does not.
package func withAsyncWatchdog<R: Sendable>(
    seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
    _ work: @escaping @Sendable () async throws -> R
) async throws -> R? {
    let limit = seconds * watchdogScale
    let waiter = Locked<CheckedContinuation<Result<R, any Error>?, Never>?>(nil)
    @Sendable func finish(_ outcome: Result<R, any Error>?) {
        waiter.withLock { waiter in
            waiter?.resume(returning: outcome)
            waiter = nil
        }
    }
    let task = Locked<Task<Void, Never>?>(nil)
    let outcome = await withCheckedContinuation { continuation in
        waiter.withLock { $0 = continuation }
        task.withLock {
            $0 = Task {
                // The clock starts when the work does: other suites' synchronous tests may hold
                // every thread of the cooperative pool for a while before it starts (under
                // ThreadSanitizer on 2 cores, for tens of seconds), which is no hang of this work.
                DispatchQueue.global().asyncAfter(deadline: .now() + limit) { finish(nil) }
                do { finish(.success(try await work())) } catch { finish(.failure(error)) }
            }
        }
        // A work that never starts at all (a pool blocked for good) still fails, later.
        DispatchQueue.global().asyncAfter(deadline: .now() + 10 * limit) { finish(nil) }
    }
    guard let outcome else {
        task.withLock { $0?.cancel() }
        Issue.record("timed out after \(limit) s\(waitsInProgress)", sourceLocation: sourceLocation)
        return nil
    }
    return try outcome.get()
}

/// The engine's waits in progress (`WaitRecords`, debug builds), one per line, for the message
/// of a watchdog that fired: a hang names the wait it is stuck in.
package var waitsInProgress: String {
    let waits = WaitRecords.current
    guard !waits.isEmpty else { return "; no resolve, reader or shutdown is waiting" }
    return "; waiting now:\n" + waits.map { "  - \($0)" }.joined(separator: "\n")
}
