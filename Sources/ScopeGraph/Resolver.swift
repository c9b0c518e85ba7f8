/// What a factory receives: resolves dependencies as part of the resolve in progress.
///
/// Resolves made through a `Resolver` join the resolution that called the factory, so cycles
/// are detected, `graph` instances are shared, and `onResolved` blocks run at the end of the
/// top-level resolve. Lookups start from ``container``: the owning container for the factories
/// of singletons, and the container the request started from for the other lifetimes.
///
/// ```swift
/// container.register(Checkout.self) { r in
///     Checkout(cart: try r.resolve(), payments: try r.resolve(tag: "stripe"))
/// }
/// ```
///
/// A `Resolver` used on another thread than the one running the factory starts a separate
/// resolution there, from the same container.
public struct Resolver: Resolving, ResolutionEntryPoint {
    /// The container this resolver starts its lookups from.
    public let container: Container
    /// The resolve this resolver belongs to: its requests join it while it runs on the
    /// calling thread. `nil` for a resolver made outside any resolve.
    @usableFromInline let context: ResolutionContext?

    @usableFromInline
    init(container: Container, context: ResolutionContext?) {
        self.container = container
        self.context = context
    }

    /// Resolves `type` and `tag` as part of the resolve in progress.
    /// - Parameters:
    ///   - type: The service type.
    ///   - tag: The tag, or `nil`.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`.
    @inlinable
    public func resolve<T>(_ type: T.Type = T.self, tag: ServiceTag? = nil) throws -> T {
        // The cached-read probe of `Container.resolve`: a published instance is the one this
        // resolve would read (no scope is active); otherwise the memoized registration saves
        // the general path its lookup.
        guard tag == nil, let read = container.beginCachedRead(ofType: T.self) else {
            return try resolveJoining(type, tag: tag, memoized: nil)
        }
        if let cached = read.published(as: T.self) {
            read.end()
            return cached
        }
        // The typed fast path: a plain `unique` or `graph` registration (`FastConstruction`).
        if let entry = read.fastEntry(as: T.self) {
            if let value = try FastConstruction.construct(entry, via: self, on: read.thread) {
                return value
            }
            return try resolveJoining(type, tag: nil, memoized: MemoizedEntry(entry: entry))
        }
        return try resolveJoining(type, tag: nil, memoized: read.endTakingEntry())
    }

    /// Everything but the cached-read probe: joins the resolve in progress (see `join`).
    @usableFromInline
    func resolveJoining<T>(_ type: T.Type, tag: ServiceTag?, memoized: MemoizedEntry?) throws -> T {
        try join {
            try $0.resolve(
                Key(T.self, tag: tag), as: T.self, from: container, arguments: nil, memoized: memoized?.entry)
        }
    }

    /// Resolves `type`, `tag` and runtime arguments as part of the resolve in progress.
    /// - Parameters:
    ///   - type: The service type.
    ///   - tag: The tag, or `nil`.
    ///   - arguments: The runtime arguments passed to the factory.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`.
    public func resolve<T, each A>(_ type: T.Type, tag: ServiceTag?, arguments: repeat each A) throws -> T {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        let packed = Arguments(repeat each arguments)
        return try join { try $0.resolve(key, as: T.self, from: container, arguments: packed) }
    }

    /// Resolves `key` as part of the resolve in progress (see `resolve(_:tag:)`).
    func resolveKey<T>(_ key: Key, as type: T.Type) throws -> T {
        try join { try $0.resolve(key, as: T.self, from: container, arguments: nil) }
    }

    func resolveIfRegisteredValue<T>(_ key: Key, as type: T.Type) throws -> T? {
        try ResolutionContext.resolveIfRegistered(key, as: type, from: container)
    }

    func resolveAllValues<T>(_ type: T.Type) throws -> [T] {
        try ResolutionContext.resolveAll(type, from: container)
    }

    func resolveAsyncValue<T>(_ key: Key, as type: T.Type, arguments: Arguments?) async throws -> Carried<T> {
        try await ResolutionContext.withContextAsync(joining: context) { context in
            Carried(try await context.resolveAsync(key, as: T.self, from: container, arguments: arguments))
        }
    }

    /// Runs `body` in this resolver's resolve when it is the one running on this thread (the
    /// factory's own thread), else in the thread's resolve or a new top-level one: a resolver
    /// handed to another thread, or kept after its resolve ended, starts its own there.
    private func join<R>(_ body: (ResolutionContext) throws -> R) throws -> R {
        if let context {
            if ThreadState.current.isBound(context) { return try body(context) }
            // A synchronous request inside an async factory of the same resolve: nothing in it
            // suspends, so it joins, bound to this thread meanwhile.
            if context.isRunningInCurrentTask { return try context.bound { try body(context) } }
        }
        return try ResolutionContext.withContext(body)
    }
}

/// Runtime arguments of one resolve, packed as a tuple. A class, so that the many copies of a
/// request's `Arguments?` (most often `nil`) are a pointer each, not an existential copied
/// through value witnesses.
package final class Arguments: @unchecked Sendable {
    // @unchecked: the tuple is immutable; it is created by the resolving thread and read by the
    // factory it calls.
    package let tuple: Any

    package init<each A>(_ values: repeat each A) { tuple = (repeat each values) }
}
