internal import Foundation
package import ScopeGraph

/// A value behind a lock, for state that factories (which may run on any thread) and the test
/// both touch.
package final class Guarded<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written inside `withLock`, with `lock` held.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}

/// Counts how many times something ran: a factory, an `onResolved` block, a deinit.
package final class Counter: Sendable {
    package init() {}

    private let storage = Guarded(0)

    /// Adds one and returns the new count.
    @discardableResult
    package func increment() -> Int {
        storage.withLock {
            $0 += 1
            return $0
        }
    }

    /// The current count.
    package var value: Int { storage.withLock { $0 } }
}

/// Records events in the order they happened.
package final class EventLog: Sendable {
    package init() {}

    private let storage = Guarded<[String]>([])

    package func record(_ event: String) { storage.withLock { $0.append(event) } }

    package var events: [String] { storage.withLock { $0 } }
}

/// An error a test factory or block throws on purpose.
package struct Boom: Error, Equatable {
    package let message: String
    package init(_ message: String = "boom") { self.message = message }
}

/// A service that knows which factory run built it and which container it came from.
package final class Probe: Sendable {
    package let label: String
    package let run: Int

    package init(_ label: String, run: Int = 0) {
        self.label = label
        self.run = run
    }
}

extension ResolutionError.Kind {
    /// The case without its payload, for comparisons in tests (independent of `description`).
    package var caseName: String {
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
    package var underlyingError: (any Error)? {
        if case .factoryFailed(let error) = self { return error }
        return nil
    }
}

extension ResolutionError {
    /// The path as the type names and tags print: `["A", "B", "A"]`.
    package var pathDescriptions: [String] { path.map(\.description) }

    /// Whether one suggestion names every one of `words` (the argument types of a registration,
    /// say).
    package func hasASuggestionNaming(_ words: String...) -> Bool {
        suggestions.contains { suggestion in words.allSatisfy { suggestion.contains($0) } }
    }
}

/// A weak reference that can be handed around and checked later.
package struct WeakProbe<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: a weak reference to a `Sendable` class instance; only loaded, never mutated.
    package weak var object: Object?
    package init(_ object: Object?) { self.object = object }
    package var isFreed: Bool { object == nil }
}

/// Runs `onDeinit` when freed: an instance whose deinit does something (resolves, say) at
/// whatever moment the container lets it go.
package final class DeinitHook: Sendable {
    private let onDeinit: @Sendable () -> Void
    package init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}
