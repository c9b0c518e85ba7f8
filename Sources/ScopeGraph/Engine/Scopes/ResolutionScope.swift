import Synchronization

/// An isolation scope for resolves: registrations that override containers' own, and a cache
/// of its own for every cached lifetime. Override scopes of `ScopeGraphTesting` and the
/// sandbox of validation are scopes. Bound to a task with `ResolutionScope.$current`.
package final class ResolutionScope: @unchecked Sendable {
    // @unchecked: `table` is written only while the scope is being set up (before it is bound
    // to any task) and read-only afterwards; `slots` is behind its lock.
    package let parent: ResolutionScope?
    private var table: [UInt64: [Key: Container.Registered]] = [:]
    private var nextSequence = 0
    private var pinned: [Container] = []
    /// Overrides replaced by a later one for the same key while the scope was set up, kept
    /// until the scope goes: the recorder replaces them under its lock, and an override's
    /// factory may hold the last reference to an object whose deinit registers.
    private var replaced: [AnyEntry] = []
    private let slots = Locked<[SlotKey: AnySlot]>([:])
    /// The instances with `onShutdown` hooks cached in this scope, made by the first one.
    private let lazyShutdownLog = LazyReference<ShutdownLog>()
    /// Told about every instance built or reused while this scope is active.
    package let observer: (any ResolutionObserver)?
    /// True for override scopes and validation: cached lifetimes are cached in this scope and
    /// the containers' caches are neither read nor written. False for traces, which only add
    /// an observer (and use the enclosing scope's cache, if any).
    private let ownsCache: Bool
    /// Plain registrations made on some containers while this scope is active (a test scope),
    /// `nil` for other scopes.
    let capture: RegistrationCapture?

    /// A registration and a container, by serial numbers (never reused, unlike addresses: the
    /// scope may outlive either).
    struct SlotKey: Hashable {
        let entry: UInt64
        let container: UInt64
    }

    /// The scope bound to the current task, if any.
    @TaskLocal package static var current: ResolutionScope?

    /// A scope nested in `parent`. `capturing` lists the containers whose plain `register`
    /// calls, made by the task running the scope, go into this scope (a test scope).
    package init(
        parent: ResolutionScope?, observer: (any ResolutionObserver)? = nil, isolatesCaches: Bool = true,
        capturing: [Container] = []
    ) {
        self.parent = parent
        self.capture = capturing.isEmpty ? nil : RegistrationCapture(containers: capturing)
        self.observer = observer ?? parent?.observer
        self.ownsCache = isolatesCaches
    }

    var hasOverrides: Bool { !table.isEmpty || capture != nil || (parent?.hasOverrides ?? false) }

    /// The scope whose cache resolves in this scope use: this one when it isolates caches,
    /// else the nearest enclosing one that does; `nil` means the containers' own caches.
    var cacheScope: ResolutionScope? { ownsCache ? self : parent?.cacheScope }

    /// The innermost override of `key` on `container`.
    func override(for key: Key, in container: Container) -> AnyEntry? {
        // Registered while the scope runs, so later than its overrides: they win.
        if let capture, let entry = capture.entry(for: key, in: container) { return entry }
        if let entry = table[container.serial]?[key]?.entry { return entry }
        return parent?.override(for: key, in: container)
    }

    /// The overrides on `container`, innermost scope first, each scope's in registration order.
    func overrides(in container: Container) -> [(key: Key, entry: AnyEntry)] {
        let own = (table[container.serial] ?? [:]).inRegistrationOrder()
        return (capture?.entries(in: container) ?? []) + own + (parent?.overrides(in: container) ?? [])
    }

    /// The scope's slot for `entry`'s instance cached in `container`.
    func slot(for entry: AnyEntry, in container: Container) -> AnySlot {
        let key = SlotKey(entry: entry.serial, container: container.serial)
        return slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = entry.makeSlot(in: self)
            slots[key] = slot
            return slot
        }
    }

    /// A store that records overrides on `container` in this scope. Use only before the scope
    /// is bound to a task.
    package func overrideStore(for container: Container) -> any RegistrationStore {
        OverrideStore(scope: self, container: container)
    }

    fileprivate func record(_ entry: AnyEntry, under key: Key, in container: Container) {
        if !pinned.contains(where: { $0 === container }) { pinned.append(container) }
        if let old = table[container.serial]?[key]?.entry { replaced.append(old) }
        table[container.serial, default: [:]][key] = Container.Registered(
            entry: entry, sequence: nextSequence)
        nextSequence += 1
    }

    /// Runs `body` with this scope bound to the current task (and its child tasks).
    package func run<R>(_ body: () throws -> R) rethrows -> R {
        ScopeActivity.enter()
        defer { ScopeActivity.leave() }
        return try ResolutionScope.$current.withValue(self) { try body() }
    }

    /// Runs `body` with this scope bound to the current task (and its child tasks), on the
    /// caller's actor: `body` is never sent to another isolation domain, so callers isolated
    /// to an actor (a `@MainActor` test) may pass closures that touch its state.
    package func runAsync<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        ScopeActivity.enter()
        defer { ScopeActivity.leave() }
        return try await ResolutionScope.$current.withValue(self, operation: body, isolation: isolation)
    }
}

/// Records `register` calls made on an override registrar into its scope.
private final class OverrideStore: RegistrationStore, @unchecked Sendable {
    // @unchecked: used only while the scope is being set up, on one thread.
    let scope: ResolutionScope
    let container: Container
    init(scope: ResolutionScope, container: Container) {
        self.scope = scope
        self.container = container
    }
    func store(_ entry: AnyEntry, under key: Key) { scope.record(entry, under: key, in: container) }
}

/// Told what a resolve does while a scope with an observer is active (validation, traces).
package protocol ResolutionObserver: AnyObject, Sendable {
    /// One resolve finished: `event.dependent` (nil at top level) asked for `event.key`,
    /// answered by `event.entry`.
    func resolved(_ event: ResolutionEvent)
}

/// What an observer is told about one resolve of a key.
package struct ResolutionEvent {
    /// The key as requested.
    package let key: Key
    /// The registration that answered.
    package let entry: AnyEntry
    /// The registration whose factory or block asked, `nil` for the top-level request.
    package let dependent: AnyEntry?
    /// The container the request's lookup started from.
    package let start: Container
    /// True when this resolve ran the factory; false when the instance came from a cache or
    /// from the graph of this resolve.
    package let isNew: Bool
    /// Time spent in this resolve, dependencies included.
    package let duration: Duration
    /// How many requests enclose this one (0 at top level).
    package let depth: Int
}

/// Counts active scopes so that the resolve fast path checks one atomic integer, not the
/// task-local, when no scope is active anywhere.
enum ScopeActivity {
    private static let active = Atomic<Int>(0)
    static func enter() { active.add(1, ordering: .relaxed) }
    static func leave() { active.subtract(1, ordering: .relaxed) }
    @inline(__always) static var mayBeActive: Bool { active.load(ordering: .relaxed) != 0 }

    /// The scope bound to the current task, read only when one may be active.
    @inline(__always) static var current: ResolutionScope? { mayBeActive ? ResolutionScope.current : nil }
}

extension ResolutionScope: ShutdownLogOwner {
    var shutDownName: String? { nil }

    var shutdownLog: ShutdownLog {
        if let log = lazyShutdownLog.load() { return log }
        return lazyShutdownLog.storeIfNil(ShutdownLog())
    }

    /// Runs the `onShutdown` hooks of the instances this scope cached, newest first (an async
    /// override scope ends this way); returns the hooks that threw.
    package func shutDownInstances() async -> [ShutdownError.Failure] {
        guard let log = lazyShutdownLog.load() else { return [] }
        return await Container.runHooks(of: log.drain(), in: "override scope")
    }
}
