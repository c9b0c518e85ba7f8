import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// The record of waits in progress (`WaitRecords`, debug builds), which a watchdog that fires
/// prints: a thread waiting for another's build, a task waiting as a reader, and a shutdown
/// caller each name what they wait for while they wait, and leave no line once they stop.
@Suite struct WaitRecordsTests {
    final class HeldForWaitRecords: Sendable {}
    final class ReadForWaitRecords: Sendable {}

    /// Polls, for at most ten seconds (scaled), until a line of the record contains `text`.
    private static func eventually(_ text: String) -> Bool {
        let deadline = Date().addingTimeInterval(10 * watchdogScale)
        while Date() < deadline {
            if WaitRecords.current.contains(where: { $0.contains(text) }) { return true }
            usleep(1_000)
        }
        return false
    }

    private static func lines(naming text: String) -> [String] {
        WaitRecords.current.filter { $0.contains(text) }
    }

    @Test func aThreadWaitingForAnotherThreadsBuildNamesTheKeyWhileItWaits() throws {
        let container = Container(name: "app")
        let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        container.register(HeldForWaitRecords.self, lifetime: .singleton) { _ in
            started.signal()
            _ = release.wait(timeout: .now() + 20 * watchdogScale)
            return HeldForWaitRecords()
        }
        let builder = StartedThread { try container.resolve(HeldForWaitRecords.self) }
        try #require(started.wait(timeout: .now() + 10 * watchdogScale) == .success, "the factory did not start")
        let waiter = StartedThread { try container.resolve(HeldForWaitRecords.self) }
        let named = Self.eventually("waits for HeldForWaitRecords")
        let line = Self.lines(naming: "waits for HeldForWaitRecords").first ?? ""
        release.signal()
        #expect(named, "no record named the wait: \(WaitRecords.current)")
        #expect(line.contains("on thread") && line.contains("built by resolve #"), "\(line)")
        let built = try builder.value()
        #expect(try waiter.value() === built)
        #expect(Self.lines(naming: "HeldForWaitRecords").isEmpty, "a record outlived its wait")
    }

    /// Polls, for at most ten seconds (scaled), until a line contains one of `texts`.
    private static func eventually(anyOf texts: [String]) async -> Bool {
        await Task.detached { texts.contains { text in eventually(text) } }.value
    }

    @Test func aTaskAskingForABuildInProgressIsRecordedWhileItWaits() async throws {
        let container = Container(name: "app")
        let (started, release) = (AsyncLatch(), AsyncLatch())
        container.registerHeldOpen(
            ReadForWaitRecords.self, lifetime: .singleton, runs: Counter(), started: started, gate: release,
            atMost: 20 * watchdogScale
        ) { ReadForWaitRecords() }
        let outcome = try await withAsyncWatchdog(seconds: 30) { () -> (recorded: Bool, shared: Bool) in
            let builder = Task { try await container.resolveAsync(ReadForWaitRecords.self) }
            await started.wait(atMost: 10 * watchdogScale)
            let waiter = Task { try await container.resolveAsync(ReadForWaitRecords.self) }
            // As a reader of the slot, or as a resolve waiting for it: either names the wait.
            let recorded = await Self.eventually(anyOf: [
                "as a reader, for a build by resolve #", "waits for ReadForWaitRecords",
            ])
            release.open()
            let first = try await builder.value
            return (recorded, try await waiter.value === first)
        }
        guard let outcome else { return }
        #expect(outcome.recorded, "no record named the waiting task: \(WaitRecords.current)")
        #expect(outcome.shared)
    }

    @Test func aSecondShutdownCallerIsRecordedWhileTheFirstRunsTheHooks() async throws {
        let container = Container(name: "waits-for-records")
        let (hookStarted, release) = (AsyncLatch(), AsyncLatch())
        container.register(ReadForWaitRecords.self, lifetime: .singleton) { _ in ReadForWaitRecords() }
            .onShutdown { _ in
                hookStarted.open()
                await release.wait(atMost: 20 * watchdogScale)
            }
        _ = try container.resolve(ReadForWaitRecords.self)
        let outcome = try await withAsyncWatchdog(seconds: 30) { () -> Bool in
            let first = Task { try await container.shutdown() }
            await hookStarted.wait(atMost: 10 * watchdogScale)
            let second = Task { try await container.shutdown() }
            let recorded = await Self.eventually(anyOf: ["waits for the shutdown of 'waits-for-records'"])
            release.open()
            try await first.value
            try await second.value
            return recorded
        }
        guard let outcome else { return }
        #expect(outcome, "no record named the second caller: \(WaitRecords.current)")
        #expect(Self.lines(naming: "'waits-for-records'").isEmpty, "a record outlived its wait")
    }
}
