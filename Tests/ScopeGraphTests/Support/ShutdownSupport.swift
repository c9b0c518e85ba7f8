import Foundation
import ScopeGraph
import Testing
import WatchdogSupport

/// An instance with an identity, whose `onShutdown` hooks the shutdown suites record.
final class ShutdownProbe: Sendable {
    let label: String
    let dependencies: [ShutdownProbe]

    init(_ label: String, _ dependencies: [ShutdownProbe] = []) {
        self.label = label
        self.dependencies = dependencies
    }
}

/// Records, in order, the probes whose hooks ran (holding them, so identities stay unique).
final class ShutdownRecorder: Sendable {
    private let storage = Guarded<[ShutdownProbe]>([])

    /// Records that a hook ran for `probe`.
    func record(_ probe: ShutdownProbe) { storage.withLock { $0.append(probe) } }

    /// The labels of the probes, in the order their hooks ran.
    var labels: [String] { storage.withLock { $0.map(\.label) } }

    /// The probes, in the order their hooks ran.
    var instances: [ShutdownProbe] { storage.withLock { $0 } }

    /// How many hook calls were recorded.
    var count: Int { storage.withLock { $0.count } }

    /// How many hook calls were recorded for `instance` (by identity).
    func count(of instance: ShutdownProbe) -> Int {
        storage.withLock { records in records.filter { $0 === instance }.count }
    }
}

/// A weak reference that can be handed around and checked later.
struct WeakProbe<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: a weak reference to a `Sendable` class instance; only loaded, never mutated.
    weak var object: Object?
    init(_ object: Object?) { self.object = object }
    var isFreed: Bool { object == nil }
}

/// Threads started at once, whose end an async test awaits without blocking the cooperative
/// pool (the shutdown they race with runs there).
final class ShutdownRaceThreads: Sendable {
    private let group = DispatchGroup()

    /// Starts `body(index)` on `count` new threads.
    init(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        for index in 0..<count {
            group.enter()
            let thread = Thread { [group] in
                body(index)
                group.leave()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// Returns when every thread has finished (bound it with `withAsyncWatchdog`).
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
    }
}

/// Runs `body` in a task started on a new thread once `ready` is signalled (or `timeout` s have
/// passed), and returns what it returned. Where the platform has `Task.immediate`, the task runs
/// on that thread until it first suspends: a shutdown begun in it begins at once, however busy
/// the cooperative pool is (bound the wait with `withAsyncWatchdog`).
func runOnThread<R: Sendable>(
    after ready: DispatchSemaphore, timeout: Double = 30, _ body: @escaping @Sendable () async throws -> R
) async throws -> R {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
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
        thread.stackSize = 4 << 20
        thread.start()
    }
}

/// A one-shot gate: work waits until the test opens it (a thread with a bounded wait, so that
/// a bug cannot hang it for good; a task by suspending).
final class ShutdownGate: Sendable {
    private let state = Guarded((arrived: false, open: false))
    private let semaphore = DispatchSemaphore(value: 0)

    /// Called by work on a thread: notes its arrival, then waits (at most `timeout` s) for
    /// `open()`. False when the gate was not opened in time.
    @discardableResult
    func arriveAndWait(timeout: Double = 20) -> Bool {
        state.withLock { $0.arrived = true }
        return semaphore.wait(timeout: .now() + timeout) == .success
    }

    /// Called by work in a task: notes its arrival, then suspends until `open()`.
    func arriveAndSuspend() async {
        state.withLock { $0.arrived = true }
        await shutdownEventually { self.state.current.open }
    }

    /// Returns when the work has arrived.
    func arrived() async { await shutdownEventually { self.state.current.arrived } }

    /// Lets the waiting work go on.
    func open() {
        state.withLock { $0.open = true }
        semaphore.signal()
    }
}

/// Polls `condition` until it holds (bound it with `withAsyncWatchdog`), or until the task is
/// cancelled (a watchdog that fired cancels its work: polling on would spin on the cooperative
/// pool, since a cancelled task's sleep returns at once).
func shutdownEventually(_ condition: @Sendable () -> Bool) async {
    while !condition() {
        do { try await Task.sleep(for: .milliseconds(1)) } catch { return }
    }
}

/// The kind of a `ResolutionError` thrown by `body`, or `nil` when it threw no
/// `ResolutionError` (nothing, or another error).
func resolutionErrorKind(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as ResolutionError {
        return error.kind.caseName
    } catch {
        return "other: \(error)"
    }
}

/// The kind of a `ResolutionError` thrown by async `body`, as `resolutionErrorKind`.
func resolutionErrorKindAsync(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as ResolutionError {
        return error.kind.caseName
    } catch {
        return "other: \(error)"
    }
}

extension Container {
    /// Registers a `ShutdownProbe` under the tag `label`, built from the probes tagged
    /// `dependencies` (resolved through the factory's resolver), whose hook records it.
    @discardableResult
    func registerShutdownProbe(
        _ label: String, lifetime: Lifetime = .singleton, dependencies: [String] = [], recorder: ShutdownRecorder
    ) -> Registration<ShutdownProbe> {
        register(ShutdownProbe.self, tag: ServiceTag(label), lifetime: lifetime) { r in
            ShutdownProbe(label, try dependencies.map { try r.resolve(ShutdownProbe.self, tag: ServiceTag($0)) })
        }
        .onShutdown { recorder.record($0) }
    }

    /// Resolves the `ShutdownProbe` tagged `label`.
    func resolveProbe(_ label: String) throws -> ShutdownProbe {
        try resolve(ShutdownProbe.self, tag: ServiceTag(label))
    }
}
