import Foundation

/// Helpers shared by the reliability suites (stress, fault injection, lookup model, leaks,
/// misuse), next to `ThreadHarness.swift`'s `runOnThreads` and `Guarded`: a deterministic
/// random generator, a barrier, and work on a thread collected under a watchdog. Kept in one
/// namespace so that they cannot clash with helpers of other suites.
enum Reliability {
    /// SplitMix64: a tiny deterministic generator, so that every randomized test replays
    /// exactly from its seed on every platform (the standard library's generator is not seedable).
    struct SplitMix64: RandomNumberGenerator {
        private var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// A value in `0..<bound`.
        mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }

        /// True with probability `percent` / 100.
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    /// Holds threads until `count` of them have arrived, so that they start their work together.
    final class Barrier: @unchecked Sendable {
        // @unchecked: `arrived` is only read or written with `condition` locked.
        private let condition = NSCondition()
        private let count: Int
        private var arrived = 0

        init(count: Int) { self.count = count }

        /// Waits until every thread has arrived, at most `timeout`; false when it timed out.
        @discardableResult
        func arriveAndWait(timeout: TimeInterval = 30) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            arrived += 1
            condition.broadcast()
            let deadline = Date(timeIntervalSinceNow: timeout)
            while arrived < count {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// Runs `body` on a new thread and waits at most `timeout` for its result; `nil` when it
    /// did not finish (a hang). The caller checks the result on the test's own thread.
    static func withWatchdog<T: Sendable>(
        timeout: TimeInterval = 30, _ body: @escaping @Sendable () throws -> T
    ) -> Result<T, any Error>? {
        Pending(body).result(timeout: timeout)
    }
}

extension Reliability {
    /// Work started on its own thread now, whose result is collected later with a bounded wait.
    final class Pending<T: Sendable>: @unchecked Sendable {
        // @unchecked: `result` is written once by the worker before `done` is signalled, and
        // read only after `done` was received.
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<T, any Error>?

        init(_ body: @escaping @Sendable () throws -> T) {
            let thread = Thread { [self] in
                result = Result { try body() }
                done.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }

        /// The result, or `nil` when the work did not finish within `timeout` seconds.
        func result(timeout: TimeInterval = 30) -> Result<T, any Error>? {
            guard done.wait(timeout: .now() + timeout) == .success else { return nil }
            return result
        }

        /// The value, or `nil` when the work did not finish within `timeout` seconds.
        /// - Throws: What the work threw.
        func wait(timeout: TimeInterval = 30) throws -> T? { try result(timeout: timeout)?.get() }
    }

    /// Starts `body` on a new thread; `wait()` collects its result with a watchdog.
    static func withWatchdogAsync<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> Pending<T> {
        Pending(body)
    }
}
