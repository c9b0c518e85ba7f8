import Foundation
import ScopeGraph

/// A value behind a lock, for state that factories (which may run on any thread) and the test
/// both touch.
final class Guarded<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written inside `withLock`, with `lock` held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    var current: Value { withLock { $0 } }
}

/// Counts how many times something ran: a factory, an `onResolved` block, a deinit.
final class Counter: Sendable {
    private let storage = Guarded(0)

    /// Adds one and returns the new count.
    @discardableResult
    func increment() -> Int {
        storage.withLock {
            $0 += 1
            return $0
        }
    }

    /// The current count.
    var value: Int { storage.withLock { $0 } }
}

/// Records events in the order they happened.
final class EventLog: Sendable {
    private let storage = Guarded<[String]>([])

    func record(_ event: String) { storage.withLock { $0.append(event) } }

    var events: [String] { storage.withLock { $0 } }
}

/// An error a test factory or block throws on purpose.
struct Boom: Error, Equatable {
    let message: String
    init(_ message: String = "boom") { self.message = message }
}

/// A service that knows which factory run built it and which container it came from.
final class Probe: Sendable {
    let label: String
    let run: Int

    init(_ label: String, run: Int = 0) {
        self.label = label
        self.run = run
    }
}

extension ResolutionError.Kind {
    /// The case without its payload, for comparisons in tests (independent of `description`).
    var caseName: String {
        switch self {
        case .notRegistered: "notRegistered"
        case .circularDependency: "circularDependency"
        case .argumentMismatch: "argumentMismatch"
        case .typeMismatch: "typeMismatch"
        case .factoryFailed: "factoryFailed"
        case .requiresAsync: "requiresAsync"
        case .requiresMainActor: "requiresMainActor"
        case .containerShutDown: "containerShutDown"
        }
    }

    /// The error a factory or block threw, for `.factoryFailed`.
    var underlyingError: (any Error)? {
        if case .factoryFailed(let error) = self { return error }
        return nil
    }
}

extension ResolutionError {
    /// The path as the type names and tags print: `["A", "B", "A"]`.
    var pathDescriptions: [String] { path.map(\.description) }
}
