package import Foundation

/// Helpers of the randomized and stress suites, next to `Threads.swift`: a deterministic random
/// generator and a barrier. Kept in one namespace so that they cannot clash with helpers of other
/// suites.
package enum Reliability {
    /// SplitMix64: a tiny deterministic generator, so that every randomized test replays
    /// exactly from its seed on every platform (the standard library's generator is not seedable).
    package struct SplitMix64: RandomNumberGenerator {
        private var state: UInt64

        package init(seed: UInt64) { state = seed }

        package mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// A value in `0..<bound`.
        package mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }

        /// True with probability `percent` / 100.
        package mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    /// Holds threads until `count` of them have arrived, so that they start their work together.
    package final class Barrier: @unchecked Sendable {
        // @unchecked: `arrived` is only read or written with `condition` locked.
        private let condition = NSCondition()
        private let count: Int
        private var arrived = 0

        package init(count: Int) { self.count = count }

        /// Waits until every thread has arrived, at most `timeout`; false when it timed out.
        @discardableResult
        package func arriveAndWait(timeout: TimeInterval = 30) -> Bool {
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
}
