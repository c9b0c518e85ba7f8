import Dispatch
import Testing
import WatchdogSupport

/// Waits for `work`, running in a new task, for at most `seconds` (times `watchdogScale`) from when it starts (and
/// `10 × seconds` in all); records an issue and returns `nil` if it has not finished by then
/// (the watchdog of async concurrency tests). No thread blocks while waiting: a timer resumes
/// the wait if the work does not. The same behaviour as `withWatchdog(seconds:_:)` of
/// ScopeGraphTestingTests, which this target cannot import.
func withAsyncWatchdog<R: Sendable>(
    seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
    _ work: @escaping @Sendable () async throws -> R
) async throws -> R? {
    let waiter = Guarded<CheckedContinuation<Result<R, any Error>?, Never>?>(nil)
    @Sendable func finish(_ outcome: Result<R, any Error>?) {
        waiter.withLock { waiter in
            waiter?.resume(returning: outcome)
            waiter = nil
        }
    }
    let task = Guarded<Task<Void, Never>?>(nil)
    let outcome = await withCheckedContinuation { continuation in
        waiter.withLock { $0 = continuation }
        task.withLock {
            $0 = Task {
                // The clock starts when the work does: other suites' synchronous tests may hold
                // every thread of the cooperative pool for a while before it starts, which is no
                // hang of this work.
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds * watchdogScale) { finish(nil) }
                do { finish(.success(try await work())) } catch { finish(.failure(error)) }
            }
        }
        // A work that never starts at all (a pool blocked for good) still fails, later.
        DispatchQueue.global().asyncAfter(deadline: .now() + 10 * seconds * watchdogScale) { finish(nil) }
    }
    guard let outcome else {
        task.withLock { $0?.cancel() }
        Issue.record("timed out after \(seconds * watchdogScale) s", sourceLocation: sourceLocation)
        return nil
    }
    return try outcome.get()
}
