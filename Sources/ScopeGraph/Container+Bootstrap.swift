extension Container {
    /// Builds the eager singletons of this container and its descendants.
    ///
    /// An eager singleton already resolved is not built again, so calling `bootstrap()` twice
    /// builds nothing the second time. Registrations that need runtime arguments cannot be
    /// built ahead and are skipped. Inside an override scope (`ScopeGraphTesting`) it builds
    /// what the scope's lookups see, into the scope's cache: an eager override instead of the
    /// registration it overrides, and nothing for a key overridden by another lifetime.
    ///
    /// ```swift
    /// let app = Container(name: "app")
    /// app.register(Metrics.self, lifetime: .eagerSingleton) { _ in Metrics.start() }
    /// try app.bootstrap()
    /// ```
    /// - Throws: `ResolutionError` from the first eager singleton that fails to build.
    public func bootstrap() throws {
        let scope = ScopeActivity.current
        for container in subtree() {
            for entry in container.eagerEntries(scope: scope) {
                _ = try ResolutionContext.withContext { context in
                    try entry.produceAny(Request(key: entry.key, start: container, arguments: nil), in: context)
                }
            }
        }
    }

    /// Creates the eager singletons of this container and its descendants, as `bootstrap()`
    /// does, including those with async or main-actor factories: the way to build async
    /// services at start-up, so that synchronous resolves (and property wrappers) find them.
    ///
    /// ```swift
    /// app.register(Database.self, lifetime: .eagerSingleton) { _ in try await Database.open() }
    /// try await app.bootstrapAsync()
    /// let db = try app.resolve(Database.self)   // cached: no await needed
    /// ```
    /// - Throws: The first `ResolutionError` a factory or its dependencies threw.
    public func bootstrapAsync() async throws {
        let scope = ScopeActivity.current
        for container in subtree() {
            for entry in container.eagerEntries(scope: scope) {
                let request = Request(key: entry.key, start: container, arguments: nil)
                _ = try await ResolutionContext.withContextAsync(joining: nil) { context in
                    Carried(try await entry.produceAnyAsync(request, in: context))
                }
            }
        }
    }

    /// The eager singletons `bootstrap()` builds for this container, in registration order:
    /// inside an override scope, the ones a lookup of their key here would find (an override
    /// replaces the registration it overrides, and an eager override is built too).
    private func eagerEntries(scope: ResolutionScope?) -> [AnyEntry] {
        var keys: Set<Key> = []
        var entries: [AnyEntry] = []
        for (key, entry) in registrationsInOrder(scope: scope) where keys.insert(key).inserted {
            guard entry.owner === self, entry.lifetime == .eagerSingleton, entry.key.arguments.isEmpty,
                !entries.contains(where: { $0 === entry })
            else { continue }
            entries.append(entry)
        }
        return entries
    }
}
