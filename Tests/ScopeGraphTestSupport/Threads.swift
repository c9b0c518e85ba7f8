package import Dispatch
internal import Foundation
package import Testing

// Work on threads of its own, under a watchdog. This file is the only place of the test targets
// that starts a `Thread`: a test says how many threads run what, and how long they may take.
//
// - `runOnThreads(n) { index in … }`: n threads at once; the caller blocks (bounded) until all end.
// - `ThreadGroup(n) { index in … }`: n threads at once, while the caller goes on; later
//   `wait(timeout:)` from a thread or `await finished()` from a task (which blocks no thread).
// - `StartedThread { … }`: one thread with a result, collected later with a bounded wait.
// - `await runOnNewThread { … }`: one thread, awaited from a task without blocking the
//   cooperative pool (blocking work must not run on the pool: its two threads on two cores are
//   what every suite's tasks share).
// - `runRounds(r) { round in … }` (Rounds.swift): r rounds, a report of the failed ones.

/// Starts `body` on a new thread with a stack of `stackSize` bytes (8 MiB: deep resolves and
/// the sanitizers' frames need more than a secondary thread's default).
private func startThread(stackSize: Int = 8 << 20, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = stackSize
    thread.start()
}

/// `count` threads started at once, each running `body(index)`, while the caller goes on.
package final class ThreadGroup: Sendable {
    private let group = DispatchGroup()

    /// Starts `body(index)` on `count` new threads, `index` in `0..<count`.
    package init(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        for index in 0..<count {
            group.enter()
            startThread { [group] in
                body(index)
                group.leave()
            }
        }
    }

    /// Blocks until every thread has finished, at most `timeout` seconds. False (and an issue
    /// recorded at `sourceLocation`) when they did not: a hang becomes a test failure instead of
    /// a stuck test run.
    package func wait(timeout: Double, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let finished = group.wait(timeout: .now() + timeout) == .success
        if !finished {
            Issue.record(
                "threads did not finish within \(timeout) s: deadlock or hang\(waitsInProgress)",
                sourceLocation: sourceLocation)
        }
        return finished
    }

    /// Returns when every thread has finished; no thread waits meanwhile (bound it with
    /// `withAsyncWatchdog`).
    package func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Suspends until every thread has finished, at most `timeout` seconds; no thread waits
    /// meanwhile. False (and an issue recorded at `sourceLocation`) when they did not.
    package func finished(timeout: Double, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        let resumed = Guarded(false)
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let resume: @Sendable (Bool) -> Void = { value in
                let first = resumed.withLock { wasResumed in
                    defer { wasResumed = true }
                    return !wasResumed
                }
                if first { continuation.resume(returning: value) }
            }
            group.notify(queue: .global()) { resume(true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { resume(false) }
        }
        if !finished {
            Issue.record(
                "threads did not finish within \(timeout) s: deadlock or hang\(waitsInProgress)",
                sourceLocation: sourceLocation)
        }
        return finished
    }
}

/// Runs `body(index)` on `count` new threads at once and waits at most `timeout` seconds.
/// Returns false (and records an issue) when the threads did not all finish.
@discardableResult
package func runOnThreads(
    _ count: Int, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Int) -> Void
) -> Bool {
    ThreadGroup(count, body).wait(timeout: timeout, sourceLocation: sourceLocation)
}

/// Runs `body(index)` on `count` new threads at once and suspends until they finish, at most
/// `timeout` seconds, without holding a thread of the cooperative pool meanwhile (a long
/// synchronous wait there starves the async tests of every suite). Returns false (and records
/// an issue) when the threads did not all finish.
@discardableResult
package func runOnThreads(
    _ count: Int, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Int) -> Void
) async -> Bool {
    await ThreadGroup(count, body).finished(timeout: timeout, sourceLocation: sourceLocation)
}

/// Work started on a new thread now (inside a factory, say), whose end and result the test
/// collects later with a bounded wait.
package final class StartedThread<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `outcome` is written once by the thread before `done` is signalled, and read
    // only after `done` was received.
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<Value, any Error>?

    /// Starts `body` on a new thread.
    package init(_ body: @escaping @Sendable () throws -> Value) {
        startThread { [self] in
            outcome = Result { try body() }
            done.signal()
        }
    }

    /// What the work returned or threw; `nil` when it did not finish within `timeout` seconds.
    package func result(timeout: Double = 30) -> Result<Value, any Error>? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        // Signal again, so that a later call sees the work finished too.
        done.signal()
        return outcome
    }

    /// The value, or `nil` when the work did not finish within `timeout` seconds.
    /// - Throws: What the work threw.
    package func value(timeout: Double = 30) throws -> Value? { try result(timeout: timeout)?.get() }
}

extension StartedThread where Value == Void {
    /// Whether the thread finished within `timeout` seconds × `watchdogScale`.
    package func wait(timeout: Double) -> Bool { result(timeout: timeout * watchdogScale) != nil }
}

/// Runs `body` on a new thread (not one of the cooperative pool's) and suspends until it
/// returns; no thread waits meanwhile. Bound it with `withAsyncWatchdog`.
package func runOnNewThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
    await withCheckedContinuation { continuation in
        startThread { continuation.resume(returning: body()) }
    }
}

/// Runs `body` in a task started on a new thread once `ready` is signalled (or `timeout` s have
/// passed), and returns what it returned. Where the platform has `Task.immediate`, the task runs
/// on that thread until it first suspends: a shutdown begun in it begins at once, however busy
/// the cooperative pool is (bound the wait with `withAsyncWatchdog`).
package func runOnThread<R: Sendable>(
    after ready: DispatchSemaphore, timeout: Double = 30, _ body: @escaping @Sendable () async throws -> R
) async throws -> R {
    try await withCheckedThrowingContinuation { continuation in
        startThread {
            _ = ready.wait(timeout: .now() + timeout)
            let operation: @Sendable () async -> Void = {
                continuation.resume(with: await Result(catching: body))
            }
            if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
                Task.immediate(operation: operation)
            } else {
                Task(operation: operation)
            }
        }
    }
}

/// Two parties meet: each `arrive` signals its own side and waits (bounded) for the other.
/// Returns false when the other side never came.
package final class Rendezvous: Sendable {
    private let first = DispatchSemaphore(value: 0)
    private let second = DispatchSemaphore(value: 0)

    package init() {}

    package func arriveFirst(timeout: Double = 5) -> Bool {
        first.signal()
        return second.wait(timeout: .now() + timeout) == .success
    }

    package func arriveSecond(timeout: Double = 5) -> Bool {
        second.signal()
        return first.wait(timeout: .now() + timeout) == .success
    }

    /// Arrives as the first party (`first`) or as the second, and appends to `met` whether the
    /// other one came within `timeout` seconds.
    package func arrive(first: Bool, timeout: Double = 5, recordingIn met: Guarded<[Bool]>) {
        let arrived = first ? arriveFirst(timeout: timeout) : arriveSecond(timeout: timeout)
        met.withLock { $0.append(arrived) }
    }
}
