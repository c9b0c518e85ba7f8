import Dispatch
import Foundation
import ScopeGraph
import WatchdogSupport

/// A one-shot latch for async tests: `wait()` suspends (no thread blocks) until `open()`. A
/// factory waits on one to stay "in progress" for as long as the test needs; the test waits on
/// another to learn that the factory has started. Waiting ignores task cancellation, so that a
/// cancelled caller cannot end a build early by accident.
final class AsyncLatch: Sendable {
    private struct State {
        var isOpen = false
        var nextID: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = Guarded(State())

    /// Whether `open()` was called.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the latch: every waiter resumes, and later waits return at once.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Suspends until the latch is open.
    func wait() async { await wait(atMost: nil) }

    /// Suspends until the latch is open or `seconds` have passed; true when it opened.
    @discardableResult
    func wait(atMost seconds: Double?) async -> Bool {
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
final class AsyncRendezvous: Sendable {
    private let first = AsyncLatch()
    private let second = AsyncLatch()

    func arriveFirst(atMost seconds: Double = 2) async -> Bool {
        first.open()
        return await second.wait(atMost: seconds)
    }

    func arriveSecond(atMost seconds: Double = 2) async -> Bool {
        second.open()
        return await first.wait(atMost: seconds)
    }
}

/// Suspends until `condition` holds, polling every millisecond, for at most `seconds`; true
/// when it held. For waiting on counters that tasks bump just before they call into the
/// container; never used to assert a duration.
@discardableResult
func waitUntil(atMost seconds: Double = 5, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Lets tasks that were just started reach the point where they suspend (a wait inside the
/// container): a short pause, no assertion on time.
func letTasksSettle() async {
    try? await Task.sleep(for: .milliseconds(50))
}

/// Runs `body` on a new thread (not one of the cooperative pool's) and suspends until it
/// returns; no thread waits meanwhile. Bound it with `withAsyncWatchdog`.
func runOnNewThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 4 << 20
        thread.start()
    }
}

/// Blocks the calling thread on `semaphore` for at most `seconds` (used on purpose, to keep
/// the main actor busy); a synchronous function, so that async callers may use it.
func blockCallingThread(on semaphore: DispatchSemaphore, atMost seconds: Double) {
    _ = semaphore.wait(timeout: .now() + seconds)
}

/// Whether the caller runs on the main actor, decided without trapping, on Linux too: there,
/// under `swift test`, main-actor jobs run on the main dispatch queue, possibly on another
/// thread than the main one, so `Thread.isMainThread` cannot tell. The main queue is marked
/// with a queue-specific value of the tests' own, which every thread draining it sees.
enum MainActorProbe {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: true)
        return true
    }()

    /// True inside a job of the main dispatch queue: on the main actor.
    static var isOnMainActor: Bool {
        _ = marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}

/// How a call ended, as a short name for comparisons: `"value"`, `"CancellationError"`, the
/// `ResolutionError` case (`"requiresAsync"`, …), or `"other: …"`.
func outcomeName<T>(_ result: Result<T, any Error>) -> String {
    switch result {
    case .success: return "value"
    case .failure(let error): return errorName(error)
    }
}

/// The name of `error` as `outcomeName` gives it.
func errorName(_ error: any Error) -> String {
    if error is CancellationError { return "CancellationError" }
    if let error = error as? ResolutionError { return error.kind.caseName }
    return "other: \(type(of: error)): \(error)"
}

/// The `ResolutionError` a synchronous `body` throws; `nil` when it throws something else or
/// nothing.
func syncResolutionError(_ body: () throws -> Void) -> ResolutionError? {
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
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }

    /// The `ResolutionError` this result failed with, if any.
    var resolutionError: ResolutionError? {
        guard case .failure(let error) = self else { return nil }
        return error as? ResolutionError
    }

    /// The value, if any.
    var successValue: Success? {
        guard case .success(let value) = self else { return nil }
        return value
    }
}

/// A build held open by a gate, for tests that make others wait for it: `started` opens when
/// the factory runs, the factory returns once `gate` opens; `runs` counts factory runs and
/// `built` watches every instance made (the factory appends them).
struct GatedBuild<Built: AnyObject & Sendable>: Sendable {
    let started = AsyncLatch()
    let gate = AsyncLatch()
    let runs = Counter()
    let built = Guarded<[WeakProbe<Built>]>([])
}
