extension Registration {
    /// Makes this registration also answer for several types at once: one `implements(_:tag:)`
    /// per type, in order.
    ///
    /// ```swift
    /// container.register(AppLogger.self, lifetime: .singleton) { _ in AppLogger() }
    ///     .implements(Logger.self, Tracer.self, MetricsSink.self)
    /// ```
    ///
    /// Everything `implements(_:tag:)` says holds for each type: the instance is the one the
    /// lifetime shares, a type the instance does not conform to throws `.typeMismatch` when
    /// resolved, and the forwarded keys have the registration's argument types.
    /// - Parameters:
    ///   - types: The additional types to answer for, usually protocols.
    ///   - tag: The tag of every forwarded key, or `nil`.
    /// - Returns: This registration, for chaining.
    @discardableResult
    public func implements<each U>(_ types: repeat (each U).Type, tag: ServiceTag? = nil) -> Registration<T> {
        for type in repeat each types {
            implements(type, tag: tag)
        }
        return self
    }
}
