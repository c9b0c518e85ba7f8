import Foundation
import ScopeGraphTestSupport

@testable import ScopeGraph

// What a test of the synchronous engine needs to order threads without sleeping: it cannot tell
// from outside that another thread has started waiting for a build, so it asks the coordinator.

extension Registration {
    /// Polls (at most `timeout` seconds) until a resolve waits on the coordinator for the one
    /// building this registration's cached instance: the builder's count of waiters, read under
    /// the coordinator's lock, is then positive. False if that never happened.
    func waitUntilSomeoneWaitsForItsBuild(timeout: Double = 10) -> Bool {
        guard let slot = entry.ownerSlot else { return false }
        let coordinator = BuildCoordinator.shared
        let deadline = Date().addingTimeInterval(timeout * watchdogScale)
        while Date() < deadline {
            if coordinator.lock.withLock({ (slot.build.builder?.waiters ?? 0) > 0 }) { return true }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return false
    }
}
