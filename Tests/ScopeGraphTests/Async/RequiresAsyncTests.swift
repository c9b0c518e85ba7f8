import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// `.requiresAsync`: a synchronous resolve (or a synchronous factory or block, which cannot
/// await) that reaches an async factory whose instance is not available throws it, with the
/// path and a description naming the fix; once cached, the instance is returned; and a build
/// in progress in an async resolve is never waited for synchronously.
@Suite struct RequiresAsyncTests {
    final class A: Sendable {
        let b: B
        init(b: B) { self.b = b }
    }
    final class B: Sendable {}
    final class Top: Sendable {
        let b: B
        let a: A
        init(b: B, a: A) {
            self.b = b
            self.a = a
        }
    }
    final class Linked: @unchecked Sendable {
        // @unchecked: `b` is set once, by an onResolved block, before the resolve returns.
        var b: B?
    }

    static let uncachedBeforeResolve: [Lifetime] = [.unique, .graph, .singleton, .weakSingleton, .perContainer]
    static let cachedLifetimes: [Lifetime] = [.singleton, .weakSingleton, .eagerSingleton, .perContainer]

    /// Registers `B` with an async factory under `lifetime`, counting its runs.
    static func registerAsyncB(in container: Container, lifetime: Lifetime, runs: Counter) {
        container.register(B.self, lifetime: lifetime) { _ in
            runs.increment()
            await Task.yield()
            return B()
        }
    }

    /// Starts `resolveAsync(B.self)` in a task of its own and, once `started` opens (B's factory
    /// is held open), runs `meanwhile`; then `release()` lets the build end. Returns what
    /// `meanwhile` returned and the built instance; nil when a watchdog fired (it says so).
    static func whileResolveAsyncBuildsB<T: Sendable>(
        in container: Container, started: AsyncLatch, release: @escaping @Sendable () -> Void,
        meanwhile: @escaping @Sendable () async -> T
    ) async throws -> (seen: T, built: B)? {
        let builder = Task.detached { try await container.resolveAsync(B.self) }
        guard try await withAsyncWatchdog(seconds: 10, { await started.wait() }) != nil else {
            release()
            return nil
        }
        let seen = try await withAsyncWatchdog(seconds: 5, meanwhile)
        release()
        let built = try await withAsyncWatchdog(seconds: 10) { try await builder.value }
        guard let seen, let built else { return nil }
        return (seen, built)
    }

    /// The same for a build held open by `held`: its gate, still closed, opens after
    /// `meanwhile`.
    static func whileResolveAsyncBuildsB<T: Sendable>(
        heldBy held: GatedBuild<B>, in container: Container, meanwhile: @escaping @Sendable () async -> T
    ) async throws -> (seen: T, built: B)? {
        try await whileResolveAsyncBuildsB(
            in: container, started: held.started,
            release: {
                #expect(!held.gate.isOpen, "the build was held open until now")
                held.gate.open()
            },
            meanwhile: meanwhile)
    }

    /// A synchronous resolve of A → B, where B has an async factory and no cached instance,
    /// throws `.requiresAsync` about B with the path ["A", "B"] and a description naming
    /// `resolveAsync`; B's factory does not run. Resolving B directly gives the path ["B"].
    @Test(arguments: uncachedBeforeResolve)
    func aSynchronousResolveOfAnUncachedAsyncRegistrationThrowsRequiresAsync(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsyncB(in: container, lifetime: lifetime, runs: runs)
        container.register(A.self) { r in A(b: try r.resolve()) }
        let error = try #require(syncResolutionError { _ = try container.resolve(A.self) })
        #expect(error.kind.caseName == "requiresAsync")
        #expect(error.key.typeName == "B")
        #expect(error.pathDescriptions == ["A", "B"])
        #expect(error.description.contains("resolveAsync"))
        let direct = try #require(syncResolutionError { _ = try container.resolve(B.self) })
        #expect(direct.kind.caseName == "requiresAsync")
        #expect(direct.pathDescriptions == ["B"])
        #expect(runs.value == 0)
    }

    /// For an async `eagerSingleton` not yet built, the description also names
    /// `bootstrapAsync()`.
    @Test func theRequiresAsyncErrorOfAnEagerSingletonNamesBootstrapAsync() throws {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsyncB(in: container, lifetime: .eagerSingleton, runs: runs)
        container.register(A.self) { r in A(b: try r.resolve()) }
        let error = try #require(syncResolutionError { _ = try container.resolve(A.self) })
        #expect(error.kind.caseName == "requiresAsync")
        #expect(error.pathDescriptions == ["A", "B"])
        #expect(error.description.contains("resolveAsync"))
        #expect(error.description.contains("bootstrapAsync()"))
        #expect(runs.value == 0)
    }

    /// Once `resolveAsync` has cached an async registration's instance, a synchronous resolve
    /// returns it, directly and as a dependency of a synchronous factory, without running the
    /// factory again.
    @Test(arguments: cachedLifetimes)
    func aSynchronousResolveReturnsAnAsyncInstanceOnceCached(lifetime: Lifetime) async throws {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsyncB(in: container, lifetime: lifetime, runs: runs)
        container.register(A.self) { r in A(b: try r.resolve()) }
        let built = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(B.self) }
        guard let built else { return }
        #expect(try container.resolve(B.self) === built)
        #expect(try container.resolve(A.self).b === built)
        #expect(runs.value == 1)
    }

    /// A synchronous resolve that finds an async singleton being built by an async resolve
    /// (its factory suspended on a continuation the test controls) throws `.requiresAsync` at
    /// once instead of waiting, directly and through a dependent; after the build, it returns
    /// the built instance.
    @Test func aSynchronousResolveThatFindsABuildInProgressThrowsInsteadOfWaiting() async throws {
        let container = Container(name: "root")
        let held = GatedBuild<B>()
        container.registerHeldOpen(B.self, lifetime: .singleton, by: held) { B() }
        container.register(A.self) { r in A(b: try r.resolve()) }
        defer { held.gate.open() }
        let seen = try await Self.whileResolveAsyncBuildsB(heldBy: held, in: container) {
            await runOnNewThread {
                [
                    syncResolutionError { _ = try container.resolve(B.self) },
                    syncResolutionError { _ = try container.resolve(A.self) },
                ]
            }
        }
        guard let (errors, built) = seen else { return }
        #expect(errors[0]?.kind.caseName == "requiresAsync")
        #expect(errors[0]?.pathDescriptions == ["B"])
        #expect(errors[0]?.description.contains("resolveAsync") == true)
        #expect(errors[1]?.kind.caseName == "requiresAsync")
        #expect(errors[1]?.pathDescriptions == ["A", "B"])
        #expect(try container.resolve(B.self) === built)
        #expect(held.runs.value == 1)
    }

    /// The same for a singleton with a synchronous factory that `resolveAsync` is building (the
    /// factory blocked on a semaphore the test controls): `resolveAsync` builds it without
    /// suspending, yet a synchronous resolve on another thread throws `.requiresAsync` instead
    /// of waiting, as for any async resolve's build; after the build, it returns the instance.
    @Test func aSynchronousResolveDoesNotWaitForResolveAsyncsBuildOfASynchronousSingleton() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        let started = AsyncLatch()
        let gate = DispatchSemaphore(value: 0)
        container.register(B.self, lifetime: .singleton) { _ in
            runs.increment()
            started.open()
            // Blocks the builder's thread, bounded: the build must still be running below.
            _ = gate.wait(timeout: .now() + 20)
            return B()
        }
        let seen = try await Self.whileResolveAsyncBuildsB(
            in: container, started: started, release: { gate.signal() },
            meanwhile: { await runOnNewThread { syncResolutionError { _ = try container.resolve(B.self) } } })
        guard let (error, built) = seen else { return }
        #expect(error?.kind.caseName == "requiresAsync")
        #expect(try container.resolve(B.self) === built)
        #expect(runs.value == 1)
    }

    /// The contract's example: a synchronous resolve on the main actor that finds a main-actor
    /// async factory's build suspended at an `await` throws `.requiresAsync` instead of waiting
    /// (waiting there could never end: the build needs the main actor to go on).
    @Test func aSynchronousResolveOnTheMainActorDoesNotWaitForASuspendedMainActorBuild() async throws {
        let container = Container(name: "root")
        let held = GatedBuild<B>()
        container.register(B.self, lifetime: .singleton) { @MainActor _ in
            held.runs.increment()
            held.started.open()
            await held.gate.wait()
            return B()
        }
        defer { held.gate.open() }
        let seen = try await Self.whileResolveAsyncBuildsB(heldBy: held, in: container) {
            await MainActor.run { syncResolutionError { _ = try container.resolve(B.self) } }
        }
        guard let (error, built) = seen else { return }
        #expect(error?.kind.caseName == "requiresAsync")
        #expect(error?.pathDescriptions == ["B"])
        let cached = try await MainActor.run { try container.resolve(B.self) }
        #expect(cached === built)
        #expect(held.runs.value == 1)
    }

    /// A synchronous factory cannot await: inside `resolveAsync`, one that depends on an async
    /// service not built yet still throws `.requiresAsync` with the path; once the service is
    /// cached, the same `resolveAsync` succeeds.
    @Test(arguments: uncachedBeforeResolve)
    func aSynchronousFactoryDependingOnAnUnbuiltAsyncServiceThrowsEvenInsideResolveAsync(lifetime: Lifetime)
        async throws
    {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsyncB(in: container, lifetime: lifetime, runs: runs)
        container.register(A.self) { r in A(b: try r.resolve()) }
        let outcome = try await withAsyncWatchdog(seconds: 10) {
            await Result { try await container.resolveAsync(A.self) }
        }
        guard let outcome else { return }
        let error = outcome.resolutionError
        #expect(error?.kind.caseName == "requiresAsync", "\(outcomeName(outcome))")
        #expect(error?.pathDescriptions == ["A", "B"])
        #expect(runs.value == 0)
        guard lifetime == .singleton || lifetime == .perContainer else { return }
        let fixed = try await withAsyncWatchdog(seconds: 10) { () -> Bool in
            let b = try await container.resolveAsync(B.self)
            return try await container.resolveAsync(A.self).b === b
        }
        #expect(fixed == true)
    }

    /// A synchronous factory gets an async dependency that this resolve already built (a
    /// `graph` instance or a singleton, built by an async factory earlier in the same
    /// `resolveAsync`): built earlier, it is available without awaiting.
    @Test(arguments: [Lifetime.graph, .singleton])
    func aSynchronousFactoryGetsAnAsyncDependencyThisResolveAlreadyBuilt(lifetime: Lifetime) async throws {
        let container = Container(name: "root")
        let runs = Counter()
        Self.registerAsyncB(in: container, lifetime: lifetime, runs: runs)
        container.register(A.self) { r in A(b: try r.resolve()) }
        container.register(Top.self) { r in
            let b: B = try await r.resolveAsync()
            return Top(b: b, a: try await r.resolveAsync())
        }
        let top = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Top.self) }
        guard let top else { return }
        #expect(top.a.b === top.b)
        #expect(runs.value == 1)
    }

    /// `onResolved` blocks are synchronous: a block that resolves an async service this resolve
    /// has not built throws `.requiresAsync`, which fails the resolve and caches nothing; once
    /// the service is built, the block gets it.
    @Test func aBlockResolvingAnUnbuiltAsyncServiceThrowsRequiresAsync() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        let linkedRuns = Counter()
        Self.registerAsyncB(in: container, lifetime: .singleton, runs: runs)
        container.register(Linked.self, lifetime: .singleton, counting: linkedRuns) { Linked() }.onResolved {
            r, linked in linked.b = try r.resolve(B.self)
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (Result<Linked, any Error>, Bool) in
            let failed = await Result { try await container.resolveAsync(Linked.self) }
            let b = try await container.resolveAsync(B.self)
            let linked = try await container.resolveAsync(Linked.self)
            return (failed, linked.b === b)
        }
        guard let (failed, linkedToB) = outcome else { return }
        #expect(failed.resolutionError?.kind.caseName == "requiresAsync", "\(outcomeName(failed))")
        #expect(failed.resolutionError?.key.typeName == "B")
        #expect(linkedToB)
        #expect(linkedRuns.value == 2, "the instance whose block failed was not cached")
        #expect(runs.value == 1)
    }
}
