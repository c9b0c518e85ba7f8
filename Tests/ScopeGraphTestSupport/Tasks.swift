package import Dispatch
internal import Foundation
package import ScopeGraph
package import Testing

/// A one-shot latch for async tests: `wait()` suspends (no thread blocks) until `open()`. A
/// factory waits on one to stay "in progress" for as long as the test needs; the test waits on
/// another to learn that the factory has started. Waiting ignores task cancellation, so that a
/// cancelled caller cannot end a build early by accident.
package final class AsyncLatch: Sendable {
    package init() {}

    private struct State {
        package var isOpen = false
        package var nextID: UInt64 = 0
        package var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = Guarded(State())

    /// Whether `open()` was called.
    package var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the latch: every waiter resumes, and later waits return at once.
    package func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Suspends until the latch is open.
    package func wait() async { await wait(atMost: nil) }

    /// Suspends until the latch is open or `seconds` have passed; true when it opened.
    @discardableResult
    package func wait(atMost seconds: Double?) async -> Bool {
        await withCheckedContinuation { continuation in
            let id: UInt64? = state.withLock { state in
                if state.isOpen { return nil }
                state.nextID += 1
                state.waiters[state.nextID] = continuation
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            guard let seconds else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [state] in
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
            }
        }
    }
}

/// Two async parties meet: each signals its side and waits (bounded) for the other. Used to
/// hold two factories until both run at once; true when the other side came.
package final class AsyncRendezvous: Sendable {
    package init() {}

    private let first = AsyncLatch()
    private let second = AsyncLatch()

    package func arriveFirst(atMost seconds: Double = 2) async -> Bool {
        first.open()
        return await second.wait(atMost: seconds)
    }

    package func arriveSecond(atMost seconds: Double = 2) async -> Bool {
        second.open()
        return await first.wait(atMost: seconds)
    }
}

/// Suspends until `condition` holds, polling every millisecond, for at most `seconds`; true
/// when it held. For waiting on counters that tasks bump just before they call into the
/// container; never used to assert a duration.
@discardableResult
package func waitUntil(atMost seconds: Double = 5, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Lets tasks that were just started reach the point where they suspend (a wait inside the
/// container): a short pause, no assertion on time.
package func letTasksSettle() async {
    try? await Task.sleep(for: .milliseconds(50))
}

/// Blocks the calling thread on `semaphore` for at most `seconds` (used on purpose, to keep
/// the main actor busy); a synchronous function, so that async callers may use it.
package func blockCallingThread(on semaphore: DispatchSemaphore, atMost seconds: Double) {
    _ = semaphore.wait(timeout: .now() + seconds)
}

/// Whether the caller runs on the main actor, decided without trapping, on Linux too: there,
/// under `swift test`, main-actor jobs run on the main dispatch queue, possibly on another
/// thread than the main one, so `Thread.isMainThread` cannot tell. The main queue is marked
/// with a queue-specific value of the tests' own, which every thread draining it sees.
package enum MainActorProbe {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: true)
        return true
    }()

    /// True inside a job of the main dispatch queue: on the main actor.
    package static var isOnMainActor: Bool {
        _ = marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}

/// How a call ended, as a short name for comparisons: `"value"`, `"CancellationError"`, the
/// `ResolutionError` case (`"requiresAsync"`, …), or `"other: …"`.
package func outcomeName<T>(_ result: Result<T, any Error>) -> String {
    switch result {
    case .success: return "value"
    case .failure(let error): return errorName(error)
    }
}

/// The name of `error` as `outcomeName` gives it.
package func errorName(_ error: any Error) -> String {
    if error is CancellationError { return "CancellationError" }
    if let error = error as? ResolutionError { return error.kind.caseName }
    return "other: \(type(of: error)): \(error)"
}

/// The `ResolutionError` a synchronous `body` throws; `nil` when it throws something else or
/// nothing.
package func syncResolutionError(_ body: () throws -> Void) -> ResolutionError? {
    do {
        try body()
    } catch let error as ResolutionError {
        return error
    } catch {
        return nil
    }
    return nil
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing `body`.
    package init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }

    /// The `ResolutionError` this result failed with, if any.
    package var resolutionError: ResolutionError? {
        guard case .failure(let error) = self else { return nil }
        return error as? ResolutionError
    }

    /// The value, if any.
    package var successValue: Success? {
        guard case .success(let value) = self else { return nil }
        return value
    }
}

/// How a resolve ended: its value or its error.
package typealias Outcome<T> = Result<T, any Error>

/// A build held open by a gate, for tests that make others wait for it: `started` opens when
/// the factory runs, the factory returns once `gate` opens; `runs` counts factory runs and
/// `built` watches every instance made (the factory appends them).
package struct GatedBuild<Built: AnyObject & Sendable>: Sendable {
    package init() {}

    package let started = AsyncLatch()
    package let gate = AsyncLatch()
    package let runs = Counter()
    package let built = Guarded<[WeakProbe<Built>]>([])
}

/// Starts `count` tasks, each running `body(index)` (a resolve, typically), and returns once
/// every one has begun, plus a short pause when `settle` (time to reach a wait inside the
/// container); collect them with `awaitOutcomes(of:)`. The tasks' work is bounded by the caller's
/// watchdog (`withAsyncWatchdog`).
package func startTasks<T: Sendable>(
    _ count: Int, settle: Bool = true, _ body: @escaping @Sendable (Int) async throws -> T
) async -> [Task<Result<T, any Error>, Never>] {
    let began = Counter()
    let tasks = (0..<count).map { index in
        Task {
            began.increment()
            return await Result { try await body(index) }
        }
    }
    await waitUntil { began.value == count }
    if settle { await letTasksSettle() }
    return tasks
}

/// The outcomes of `tasks`, in order.
package func awaitOutcomes<T: Sendable>(of tasks: [Task<Result<T, any Error>, Never>]) async -> [Result<T, any Error>] {
    var results: [Result<T, any Error>] = []
    for task in tasks { results.append(await task.value) }
    return results
}

/// Runs `body(index)` in `count` child tasks at once, under `withAsyncWatchdog(seconds:)`, and
/// returns what each returned, by index (`nil` when the watchdog fired); rethrows the first
/// error a task threw.
package func resultsOfTasks<T: Sendable>(
    _ count: Int, seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Int) async throws -> T
) async throws -> [Int: T]? {
    try await withAsyncWatchdog(seconds: seconds, sourceLocation: sourceLocation) {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for index in 0..<count { group.addTask { (index, try await body(index)) } }
            var results: [Int: T] = [:]
            for try await (index, value) in group { results[index] = value }
            return results
        }
    }
}
