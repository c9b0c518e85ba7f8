package import Dispatch
package import ScopeGraph

// Registrations and links that many suites write the same way, declared once.

extension Container {
    /// A container named "root" and two children of it named `first` and `second`: siblings,
    /// not linked (the opening of a test of what one sibling sees of the other).
    package static func rootWithTwoChildren(
        _ first: String, _ second: String
    ) -> (root: Container, first: Container, second: Container) {
        let root = Container(name: "root")
        return (root, root.makeChild(name: first), root.makeChild(name: second))
    }
}

extension Container {
    /// Registers `T`, whose factory resolves `dependency` (tagged `dependencyTag`) first and then
    /// returns `make()`: the edge T → dependency of a graph whose instances do not keep what
    /// they were built from, as the tests of cycles, errors, validation and traces draw them.
    @discardableResult
    package func register<T, D>(
        _ type: T.Type, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        needing dependency: D.Type, tagged dependencyTag: ServiceTag? = nil,
        _ make: @escaping @Sendable () -> T
    ) -> Registration<T> {
        register(type, tag: tag, lifetime: lifetime) { r in
            _ = try r.resolve(dependency, tag: dependencyTag)
            return make()
        }
    }

    /// `register(_:needing:)` whose factory counts its runs in `runs` first.
    @discardableResult
    package func register<T, D>(
        _ type: T.Type, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        needing dependency: D.Type, tagged dependencyTag: ServiceTag? = nil, counting runs: Counter,
        _ make: @escaping @Sendable () -> T
    ) -> Registration<T> {
        register(type, tag: tag, lifetime: lifetime) { r in
            runs.increment()
            _ = try r.resolve(dependency, tag: dependencyTag)
            return make()
        }
    }

    /// Registers `T`, built by `make`, counting the factory's runs in `runs`.
    @discardableResult
    package func register<T>(
        _ type: T.Type, tag: ServiceTag? = nil, lifetime: Lifetime = .graph, counting runs: Counter,
        _ make: @escaping @Sendable () -> T
    ) -> Registration<T> {
        register(type, tag: tag, lifetime: lifetime) { _ in
            runs.increment()
            return make()
        }
    }
}

extension Container {
    /// Registers `T` under `lifetime` with a factory that removes this very registration
    /// (through its handle) and then returns `make()`. The factory does not keep the container;
    /// the handle it keeps is dropped by `release` (call it when the test ends: it breaks the
    /// cycle between the registration and its factory).
    package func registerRemovingItself<T>(
        _ type: T.Type, lifetime: Lifetime, _ make: @escaping @Sendable () -> T
    ) -> (registration: Registration<T>, release: @Sendable () -> Void) {
        let handle = Guarded<Registration<T>?>(nil)
        let registration = register(type, lifetime: lifetime) { [unowned self] _ in
            if let registration = handle.current { remove(registration) }
            return make()
        }
        handle.withLock { $0 = registration }
        return (registration, { handle.withLock { $0 = nil } })
    }

    /// Registers a singleton `T` whose first build counts in `started`, blocks its thread on
    /// `gate` (at most `seconds`) and throws `error`; later builds return `make(run)` (`run` 2,
    /// 3, …). `runs` counts the builds.
    package func registerFirstBuildHeldThenFailing<T>(
        _ type: T.Type, runs: Counter, started: Counter, gate: DispatchSemaphore, atMost seconds: Double,
        throwing error: Boom, _ make: @escaping @Sendable (_ run: Int) -> T
    ) {
        registerFirstBuildHeld(type, runs: runs, started: started, gate: gate, atMost: seconds, error: error, make)
    }

    /// Registers a singleton `T` whose first build counts in `started`, blocks its thread on
    /// `gate` (at most `seconds`) and returns `make(1)`; later builds return `make(run)` at once.
    /// `runs` counts the builds.
    package func registerFirstBuildHeld<T>(
        _ type: T.Type, runs: Counter, started: Counter, gate: DispatchSemaphore, atMost seconds: Double,
        _ make: @escaping @Sendable (_ run: Int) -> T
    ) {
        registerFirstBuildHeld(type, runs: runs, started: started, gate: gate, atMost: seconds, error: nil, make)
    }

    private func registerFirstBuildHeld<T>(
        _ type: T.Type, runs: Counter, started: Counter, gate: DispatchSemaphore, atMost seconds: Double,
        error: Boom?, _ make: @escaping @Sendable (_ run: Int) -> T
    ) {
        register(type, lifetime: .singleton) { _ in
            let run = runs.increment()
            guard run == 1 else { return make(run) }
            started.increment()
            blockCallingThread(on: gate, atMost: seconds)
            if let error { throw error }
            return make(run)
        }
    }

    /// Registers `T` under `lifetime` with an async factory held open: it counts its runs in
    /// `runs`, opens `started`, and waits for `gate` (at most `seconds`, when given) before it
    /// returns `make()`.
    @discardableResult
    package func registerHeldOpen<T>(
        _ type: T.Type, lifetime: Lifetime, runs: Counter, started: AsyncLatch, gate: AsyncLatch,
        atMost seconds: Double? = nil, _ make: @escaping @Sendable () -> T
    ) -> Registration<T> {
        register(type, lifetime: lifetime) { _ in
            runs.increment()
            started.open()
            await gate.wait(atMost: seconds)
            return make()
        }
    }

    /// `registerHeldOpen` with the counter and latches of `held`; every instance made is
    /// watched in `held.built`.
    @discardableResult
    package func registerHeldOpen<T>(
        _ type: T.Type, lifetime: Lifetime, by held: GatedBuild<T>, atMost seconds: Double? = nil,
        _ make: @escaping @Sendable () -> T
    ) -> Registration<T> {
        registerHeldOpen(
            type, lifetime: lifetime, runs: held.runs, started: held.started, gate: held.gate, atMost: seconds
        ) {
            let instance = make()
            held.built.withLock { $0.append(WeakProbe(instance)) }
            return instance
        }
    }

    /// Links this container and `other` both ways: each collaborates with the other.
    package func collaborateBothWays(with other: Container) {
        collaborate(with: other)
        other.collaborate(with: self)
    }
}
