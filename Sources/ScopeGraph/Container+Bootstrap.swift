extension Container {
    /// Builds the eager singletons of this container and its descendants.
    ///
    /// An eager singleton already resolved is not built again, so calling `bootstrap()` twice
    /// builds nothing the second time. Registrations that need runtime arguments cannot be
    /// built ahead and are skipped.
    ///
    /// ```swift
    /// let app = Container(name: "app")
    /// app.register(Metrics.self, lifetime: .eagerSingleton) { _ in Metrics.start() }
    /// try app.bootstrap()
    /// ```
    /// - Throws: `ResolutionError` from the first eager singleton that fails to build.
    public func bootstrap() throws {
        for container in subtree() {
            let entries = container.withState { state in
                state.registrations.values.sorted { $0.sequence < $1.sequence }.map(\.entry)
            }
            for entry in entries
            where entry.owner === container && entry.lifetime == .eagerSingleton && entry.key.arguments.isEmpty {
                _ = try ResolutionContext.withContext { context in
                    try entry.produceAny(Request(key: entry.key, start: container, arguments: nil), in: context)
                }
            }
        }
    }
}
