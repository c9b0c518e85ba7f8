internal import Foundation
package import ScopeGraph
package import Testing

/// An instance with an identity, whose `onShutdown` hooks the shutdown suites record.
package final class ShutdownProbe: Sendable {
    package let label: String
    package let dependencies: [ShutdownProbe]

    package init(_ label: String, _ dependencies: [ShutdownProbe] = []) {
        self.label = label
        self.dependencies = dependencies
    }
}

/// Records, in order, the probes whose hooks ran (holding them, so identities stay unique).
package final class ShutdownRecorder: Sendable {
    package init() {}

    private let storage = Guarded<[ShutdownProbe]>([])

    /// Records that a hook ran for `probe`.
    package func record(_ probe: ShutdownProbe) { storage.withLock { $0.append(probe) } }

    /// The labels of the probes, in the order their hooks ran.
    package var labels: [String] { storage.withLock { $0.map(\.label) } }

    /// The probes, in the order their hooks ran.
    package var instances: [ShutdownProbe] { storage.withLock { $0 } }

    /// How many hook calls were recorded.
    package var count: Int { storage.withLock { $0.count } }

    /// Whether the hooks that ran were exactly those of `instances`, in this order, once each
    /// (compared by identity).
    package func recorded(exactly instances: [ShutdownProbe]) -> Bool {
        storage.withLock { records in
            records.count == instances.count && zip(records, instances).allSatisfy { $0 === $1 }
        }
    }

    /// Whether the hooks that ran were those of `instances`, once each, in any order.
    package func recorded(onceEach instances: [ShutdownProbe]) -> Bool {
        count == instances.count && instances.allSatisfy { count(of: $0) == 1 }
    }

    /// How many hook calls were recorded for `instance` (by identity).
    package func count(of instance: ShutdownProbe) -> Int {
        storage.withLock { records in records.filter { $0 === instance }.count }
    }
}

/// A one-shot gate: work waits until the test opens it (a thread with a bounded wait, so that
/// a bug cannot hang it for good; a task by suspending).
package final class ShutdownGate: Sendable {
    package init() {}

    private let state = Guarded((arrived: false, open: false))
    private let semaphore = DispatchSemaphore(value: 0)

    /// Called by work on a thread: notes its arrival, then waits (at most `timeout` s) for
    /// `open()`. False when the gate was not opened in time.
    @discardableResult
    package func arriveAndWait(timeout: Double = 20) -> Bool {
        state.withLock { $0.arrived = true }
        return semaphore.wait(timeout: .now() + timeout) == .success
    }

    /// Called by work in a task: notes its arrival, then suspends until `open()`.
    package func arriveAndSuspend() async {
        state.withLock { $0.arrived = true }
        await shutdownEventually { self.state.current.open }
    }

    /// Returns when the work has arrived.
    package func arrived() async { await shutdownEventually { self.state.current.arrived } }

    /// Lets the waiting work go on.
    package func open() {
        state.withLock { $0.open = true }
        semaphore.signal()
    }
}

/// Polls `condition` until it holds (bound it with `withAsyncWatchdog`), or until the task is
/// cancelled (a watchdog that fired cancels its work: polling on would spin on the cooperative
/// pool, since a cancelled task's sleep returns at once).
package func shutdownEventually(_ condition: @Sendable () -> Bool) async {
    while !condition() {
        do { try await Task.sleep(for: .milliseconds(1)) } catch { return }
    }
}

/// The kind of a `ResolutionError` thrown by `body`, or `nil` when it threw no
/// `ResolutionError` (nothing, or another error).
package func resolutionErrorKind(_ body: () throws -> Void) -> String? {
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
package func resolutionErrorKindAsync(_ body: () async throws -> Void) async -> String? {
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
    /// `dependencies` (resolved through the factory's resolver), whose hook records it in
    /// `recorder` (no hook when `recorder` is `nil`).
    @discardableResult
    package func registerShutdownProbe(
        _ label: String, lifetime: Lifetime = .singleton, dependencies: [String] = [], recorder: ShutdownRecorder?
    ) -> Registration<ShutdownProbe> {
        let registration = register(ShutdownProbe.self, tag: ServiceTag(label), lifetime: lifetime) { r in
            ShutdownProbe(label, try dependencies.map { try r.resolve(ShutdownProbe.self, tag: ServiceTag($0)) })
        }
        if let recorder { registration.onShutdown { recorder.record($0) } }
        return registration
    }

    /// Registers a `ShutdownProbe` as `registerShutdownProbe` does and resolves it, so that it is
    /// cached (and shut down) in this container; returns it.
    @discardableResult
    package func cacheShutdownProbe(
        _ label: String, lifetime: Lifetime = .singleton, recorder: ShutdownRecorder?
    ) throws -> ShutdownProbe {
        registerShutdownProbe(label, lifetime: lifetime, recorder: recorder)
        return try resolveProbe(label)
    }

    /// Resolves the `ShutdownProbe` tagged `label`.
    package func resolveProbe(_ label: String) throws -> ShutdownProbe {
        try resolve(ShutdownProbe.self, tag: ServiceTag(label))
    }
}

/// Runs `body` under `withAsyncWatchdog(seconds:)` with a new `ShutdownRecorder` and a new
/// container named `name`: the frame of most tests of the shutdown suites.
package func withShutdownRecorder(
    container name: String, seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (_ recorder: ShutdownRecorder, _ container: Container) async throws -> Void
) async throws {
    _ = try await withAsyncWatchdog(seconds: seconds, sourceLocation: sourceLocation) {
        try await body(ShutdownRecorder(), Container(name: name))
    }
}
