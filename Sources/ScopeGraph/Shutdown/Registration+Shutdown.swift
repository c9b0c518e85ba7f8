extension Registration {
    /// Adds a hook that closes an instance this registration cached, when its container shuts
    /// down (`Container.shutdown()`, the end of `withScope`, or of an async override scope).
    ///
    /// ```swift
    /// app.register(ConnectionPool.self, lifetime: .singleton) { _ in try await ConnectionPool.open() }
    ///     .onShutdown { pool in await pool.close() }
    /// ```
    ///
    /// Hooks run for cached lifetimes (`singleton`, `eagerSingleton`, a `weakSingleton` still
    /// alive, `perContainer`), once per instance, newest instance first, so an instance is
    /// closed before the instances it was built from; hooks of one registration run in the
    /// order added. `unique` and `graph` instances are not tracked. An instance released before
    /// shutdown (by `remove`, replacement, `removeAll` or `restore`) is not shut down, and not
    /// kept alive for its hook. A hook added after instances were cached closes them too
    /// (except those an override scope caches: add hooks when registering).
    /// - Parameter body: Closes the instance; may suspend and throw (a throwing hook does not
    ///   stop the others; `shutdown()` reports it in its `ShutdownError`).
    /// - Returns: This registration, for chaining.
    @discardableResult
    public func onShutdown(_ body: @escaping @Sendable (T) async throws -> Void) -> Registration<T> {
        entry.addShutdownHook { box in
            // The hook takes the box its slot published and reads the instance out of it as
            // the slot does (`Slot.readPublished`, `Slot.value(in:_:orElse:)`): no `Any` in
            // between, whose cast back to `T` (a conformance lookup for a protocol type) cost
            // more than the rest of the hook. Written out here, not shared with the slot:
            // calling a `Slot<T>` function from this unspecialized closure measured 1,356
            // instructions more per request with a hook (benchmark K2).
            if let weak = box as? WeakBox {
                guard let object = weak.object else { return }
                // Checked: a weak slot only publishes instances of `T` (`Slot.makeBox`).
                try await body(object as! T)
                return
            }
            // Invariant: a strong slot of this entry publishes `StrongBox<T>`s only.
            assert(box is StrongBox<T>, "ScopeGraph: a slot of \(T.self) holds a \(type(of: box))")
            try await body(unsafeDowncast(box, to: StrongBox<T>.self).value)
        }
        return self
    }
}
