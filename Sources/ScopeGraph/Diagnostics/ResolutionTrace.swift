import Foundation

/// What a traced operation resolved: one event per key resolved, in the order the resolves
/// finished (dependencies before their dependents).
///
/// ```swift
/// let (app, trace) = try Container.trace { try root.resolve(App.self) }
/// print(trace)
/// // App — graph in 'app', new, 12.410 ms
/// //   Database — singleton in 'app', new, 12.102 ms
/// //   Logger — singleton in 'app', cached, 0.002 ms
/// ```
///
/// Tracing is opt-in and scoped: only resolves made inside `Container.trace(_:)` or
/// `Container.withTrace(_:operation:)` (on the same task or its child tasks) are reported, and
/// tracing changes no caching. Outside a trace, resolves pay nothing for it.
public struct ResolutionTrace: Sendable, CustomStringConvertible {
    /// One key resolved.
    public struct Event: Sendable, CustomStringConvertible {
        /// The key as requested (a forwarded type, or the registration's own key).
        public let key: ServiceKey
        /// The registration that answered (its own key, which differs from `key` for a
        /// forwarded type).
        public let registration: ServiceKey
        /// The name of the container that owns the registration that answered.
        public let container: String
        /// The name of the container the lookup started from.
        public let start: String
        /// The lifetime of the registration that answered.
        public let lifetime: Lifetime
        /// True when the factory ran for this request; false when the instance came from a
        /// cache, or from the object graph of the same top-level resolve.
        public let isNew: Bool
        /// Time spent in this resolve, dependencies included (for a new instance: its factory
        /// and everything the factory resolved).
        public let duration: Duration
        /// How many resolves enclose this one: 0 for the top-level request.
        public let depth: Int
        /// The registration whose factory or `onResolved` block asked, `nil` at top level.
        public let dependent: ServiceKey?

        /// `Key — lifetime in 'container' (lookup from 'start'), new|cached, 0.123 ms`.
        public var description: String {
            let from = start == container ? "" : " (lookup from '\(start)')"
            let milliseconds =
                Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
            return
                "\(key) — \(lifetime) in '\(container)'\(from), \(isNew ? "new" : "cached"), \(String(format: "%.3f", milliseconds)) ms"
        }
    }

    /// Every key resolved, in the order the resolves finished.
    public let events: [Event]

    /// Creates a trace from events.
    /// - Parameter events: The events, in the order the resolves finished.
    public init(events: [Event]) { self.events = events }

    /// The events as a tree: each resolve followed by what it resolved, indented, in the
    /// order requested. Concurrent resolves traced together may interleave.
    public var description: String {
        // Events arrive in post-order: a resolve's dependencies, one level deeper, come first.
        final class Node {
            let event: Event
            let children: [Node]
            init(_ event: Event, _ children: [Node]) {
                self.event = event
                self.children = children
            }
        }
        var waiting: [Int: [Node]] = [:]
        for event in events {
            let node = Node(event, waiting.removeValue(forKey: event.depth + 1) ?? [])
            waiting[event.depth, default: []].append(node)
        }
        var lines: [String] = []
        func emit(_ node: Node, _ depth: Int) {
            lines.append(String(repeating: "  ", count: depth) + node.event.description)
            for child in node.children { emit(child, depth + 1) }
        }
        for depth in waiting.keys.sorted() {
            for node in waiting[depth] ?? [] { emit(node, 0) }
        }
        return lines.joined(separator: "\n")
    }
}

extension Container {
    /// Runs `operation` and reports every key it resolves to `sink`, as each resolve finishes.
    ///
    /// Covers resolves made by `operation` on the current task and its child tasks, from any
    /// container. Tracing only observes: it changes no caching, and inside an override scope
    /// it sees the scope's overrides and uses its caches. `sink` is called on the resolving thread, while
    /// the resolve is in progress: keep it fast, and do not resolve from it.
    ///
    /// ```swift
    /// try Container.withTrace({ event in
    ///     if event.isNew, event.duration > .milliseconds(50) { print("slow:", event) }
    /// }) {
    ///     try app.bootstrap()
    /// }
    /// ```
    /// - Parameters:
    ///   - sink: Receives one event per key resolved.
    ///   - operation: The work to trace.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withTrace<R>(
        _ sink: @escaping @Sendable (ResolutionTrace.Event) -> Void, operation: () throws -> R
    ) rethrows -> R {
        try tracingScope(sink).run(operation)
    }

    /// Runs the async `operation` and reports every key it resolves to `sink`; see
    /// `withTrace(_:operation:)`.
    /// - Parameters:
    ///   - sink: Receives one event per key resolved.
    ///   - operation: The work to trace.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withTrace<R>(
        _ sink: @escaping @Sendable (ResolutionTrace.Event) -> Void, operation: () async throws -> R
    ) async rethrows -> R {
        try await tracingScope(sink).runAsync(operation)
    }

    /// Runs `operation` and returns its result with the trace of everything it resolved.
    ///
    /// ```swift
    /// let (app, trace) = try Container.trace { try root.resolve(App.self) }
    /// let slowest = trace.events.filter(\.isNew).max { $0.duration < $1.duration }
    /// ```
    /// - Parameter operation: The work to trace.
    /// - Returns: What `operation` returns, and the trace.
    /// - Throws: What `operation` throws (the trace is then lost; use `withTrace` to see the
    ///   resolves that happened before the failure).
    public static func trace<R>(_ operation: () throws -> R) rethrows -> (result: R, trace: ResolutionTrace) {
        let events = Locked<[ResolutionTrace.Event]>([])
        let result = try withTrace({ event in events.withLock { $0.append(event) } }, operation: operation)
        return (result, ResolutionTrace(events: events.withLock { $0 }))
    }

    private static func tracingScope(_ sink: @escaping @Sendable (ResolutionTrace.Event) -> Void) -> ResolutionScope {
        let parent = ResolutionScope.current
        return ResolutionScope(
            parent: parent, observer: TraceObserver(sink: sink, next: parent?.observer), isolatesCaches: false)
    }
}

/// Turns resolution events into trace events, and passes them on to the enclosing scope's
/// observer (an outer trace, or a validation).
private final class TraceObserver: ResolutionObserver {
    let sink: @Sendable (ResolutionTrace.Event) -> Void
    let next: (any ResolutionObserver)?

    init(sink: @escaping @Sendable (ResolutionTrace.Event) -> Void, next: (any ResolutionObserver)?) {
        self.sink = sink
        self.next = next
    }

    func resolved(_ event: ResolutionEvent) {
        sink(
            ResolutionTrace.Event(
                key: event.key.serviceKey, registration: event.entry.key.serviceKey, container: event.entry.ownerName,
                start: event.start.name, lifetime: event.entry.lifetime, isNew: event.isNew, duration: event.duration,
                depth: event.depth, dependent: event.dependent?.key.serviceKey))
        next?.resolved(event)
    }
}
