import Foundation
import Testing
import WatchdogSupport

/// Runs `body(index)` on `count` new threads at once and waits at most `timeout` seconds.
/// Returns false (and records an issue) when the threads did not all finish: a hang becomes a
/// test failure instead of a stuck test run.
@discardableResult
func runOnThreads(
    _ count: Int, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Int) -> Void
) -> Bool {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }
    let finished = group.wait(timeout: .now() + timeout) == .success
    if !finished {
        Issue.record("threads did not finish within \(timeout) s: deadlock or hang", sourceLocation: sourceLocation)
    }
    return finished
}

/// Two parties meet: each `arrive` signals its own side and waits (bounded) for the other.
/// Returns false when the other side never came.
final class Rendezvous: Sendable {
    private let first = DispatchSemaphore(value: 0)
    private let second = DispatchSemaphore(value: 0)
    func arriveFirst(timeout: Double = 5) -> Bool {
        first.signal()
        return second.wait(timeout: .now() + timeout) == .success
    }
    func arriveSecond(timeout: Double = 5) -> Bool {
        second.signal()
        return first.wait(timeout: .now() + timeout) == .success
    }
}

/// A thread started with `body`, running on its own while the caller goes on (inside a factory,
/// say); `wait(timeout:)` waits, bounded, for it to finish.
final class StartedThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let done = self.done
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Whether the thread finished within `timeout` seconds (scaled for sanitizers).
    func wait(timeout: Double) -> Bool { done.wait(timeout: .now() + timeout * watchdogScale) == .success }
}
