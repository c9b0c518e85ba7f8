extension Container {
    /// Registers an object that already exists: the container keeps it and hands out that very
    /// instance, with no factory to call.
    ///
    /// The registration's lifetime is `.singleton`, already built: every resolve, from this
    /// container or a descendant, returns `instance`. `implements` and `onResolved` work as for
    /// any registration; `onResolved` blocks run once, on the first resolve.
    ///
    /// ```swift
    /// let settings = Settings(environment: .staging)
    /// container.register(instance: settings)
    /// container.register(ConsoleLogger.self, instance: logger).implements(Logger.self)
    /// ```
    /// - Parameters:
    ///   - type: The type to answer for; the instance's static type when omitted.
    ///   - tag: A tag that tells this registration apart from others of the same type.
    ///   - instance: The instance to hand out. The container keeps it (strongly) until the
    ///     registration is removed or replaced, or the container is deallocated.
    /// - Returns: The registration, for `implements`, `onResolved` and `remove`.
    @discardableResult
    public func register<T>(_ type: T.Type = T.self, tag: ServiceTag? = nil, instance: T) -> Registration<T> {
        let kept = KeptInstance(value: instance)
        return register(type, tag: tag, lifetime: .singleton) { _ in kept.value }
    }
}

/// An instance handed to `register(instance:)` (of a container or an override scope).
package struct KeptInstance<T>: @unchecked Sendable {
    // @unchecked: the value is only read, and handed out to resolvers on any thread exactly as
    // the container hands out a singleton it built.
    package let value: T
    package init(value: T) { self.value = value }
}
