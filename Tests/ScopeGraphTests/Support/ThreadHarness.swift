import Foundation
import Testing

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

/// A thread-safe box for values that tests collect from several threads.
final class SharedBox<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
    var current: Value { withLock { $0 } }
}

/// A thread-safe counter.
final class RunCounter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
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
