import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// The typed fast path (`FastConstruction`): a `unique` registration with a plain synchronous
/// factory and no blocks, once its lookup is memoized (from the third resolve of a key from a
/// container), is constructed by code specialized in the caller's module. It must behave as the
/// general path does: cycles, errors, joining the resolve in progress, completeness. Each test
/// resolves its keys a few times first, so that the requests it checks take the fast path.
@Suite struct FastPathTests: ServiceFixtures {
    final class Top: Sendable {}

    /// Resolves `body` `times` times, ignoring errors: memoizes the lookups it makes.
    private static func warm(_ times: Int = 3, _ body: () throws -> Void) {
        for _ in 0..<times { try? body() }
    }

    @Test func aUniqueCycleOnTheFastPathThrowsCircularDependencyWithItsPath() throws {
        let container = Container(name: "app")
        container.register(Left.self, lifetime: .unique, needing: Right.self) { Left() }
        container.register(Right.self, lifetime: .unique, needing: Left.self) { Right() }
        Self.warm { _ = try container.resolve(Left.self) }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Left.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["Left", "Right", "Left"])
    }

    @Test func aFactoryErrorOnTheFastPathIsReportedWithItsPath() throws {
        let container = Container(name: "app")
        let calls = Guarded(0)
        container.register(Right.self, lifetime: .unique) { _ in
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            if call > 3 { throw Boom("late") }
            return Right()
        }
        container.register(Left.self, lifetime: .unique, needing: Right.self) { Left() }
        Self.warm { _ = try container.resolve(Left.self) }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Left.self) }
        #expect(error.kind.underlyingError as? Boom == Boom("late"))
        #expect(error.pathDescriptions == ["Left", "Right"])
        // The failed resolve left nothing behind: the next one runs as usual.
        calls.withLock { $0 = 0 }
        _ = try container.resolve(Left.self)
    }

    /// A `container.resolve` made directly inside a factory joins its resolve on the fast path
    /// too: the `unique` holder it builds there shares the resolve's `graph` instance.
    @Test func aContainerResolveInsideAFactoryJoinsTheResolveOnTheFastPath() throws {
        let container = Container(name: "app")
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        container.register(Holder.self, lifetime: .unique) { r in Holder(shared: try r.resolve()) }
        container.register(Pair.self, lifetime: .unique) { r in
            Pair(first: try container.resolve(Holder.self).shared, second: try r.resolve(Shared.self))
        }
        defer { container.removeAll() }  // the factory captures the container
        Self.warm { _ = try container.resolve(Pair.self) }
        let pair = try container.resolve(Pair.self)
        #expect(pair.first === pair.second)
        #expect(try container.resolve(Pair.self).first !== pair.first, "a graph instance outlived its resolve")
    }

    /// `resolveAsync` of a plain `unique` registration takes the fast path from a task, joins
    /// the resolve of the async factory that asks (a `graph` instance is shared with it), and in
    /// a child task of that factory is a branch of its resolve: a cycle back to the factory's
    /// singleton is reported, not waited for.
    @Test func resolveAsyncOnTheFastPathJoinsAsyncFactoriesAndTheirChildTasks() async throws {
        let container = Container(name: "app")
        defer { container.removeAll() }  // a factory captures the container
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        container.register(Holder.self, lifetime: .unique) { r in Holder(shared: try r.resolve()) }
        container.register(Pair.self, lifetime: .unique) { r in
            let holder = try await container.resolveAsync(Holder.self)
            return Pair(first: holder.shared, second: try await r.resolveAsync(Shared.self))
        }
        container.register(Left.self, lifetime: .unique, needing: Store.self) { Left() }
        container.register(Store.self, lifetime: .singleton) { r in
            async let left = container.resolveAsync(Left.self)
            _ = try await left
            return Store(middle: Middle(config: Config()))
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) { () -> (Bool, String) in
            for _ in 0..<3 {
                _ = try await container.resolveAsync(Holder.self)
                _ = try? await container.resolveAsync(Pair.self)
                _ = try? await container.resolveAsync(Left.self)
            }
            let pair = try await container.resolveAsync(Pair.self)
            let cycle = await Result { try await container.resolveAsync(Store.self) }
            return (pair.first === pair.second, outcomeName(cycle))
        }
        guard let (shared, cycle) = outcome else { return }
        #expect(shared, "the holder's graph instance was not the factory's")
        #expect(cycle == "circularDependency")
    }

    /// A fast-path instance built from an incomplete one (a singleton with a block, built in
    /// the same resolve) is incomplete too, and so is the singleton built from it: when the
    /// resolve then fails, that singleton is discarded, not cached.
    @Test func aFastPathInstanceBuiltFromAnIncompleteOneMakesItsDependentsIncomplete() throws {
        let container = Container(name: "app")
        let storeRuns = Counter()
        let failTop = Guarded(false)
        container.register(Config.self, lifetime: .singleton) { _ in Config() }.onResolved { _, _ in }
        container.register(Middle.self, lifetime: .unique) { r in Middle(config: try r.resolve()) }
        container.register(Store.self, lifetime: .singleton) { r in
            storeRuns.increment()
            return Store(middle: try r.resolve())
        }
        container.register(Top.self, lifetime: .unique) { r in
            _ = try r.resolve(Store.self)
            if failTop.current { throw Boom("top") }
            return Top()
        }
        Self.warm {
            _ = try container.resolve(Middle.self)
            _ = try container.resolve(Top.self)
        }
        // Built again in one resolve: the config (incomplete until the resolve ends), the
        // middle on the fast path, the store; then the top fails.
        container.resetCachedInstances()
        let runsBefore = storeRuns.value
        failTop.withLock { $0 = true }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(Top.self) }
        failTop.withLock { $0 = false }
        _ = try container.resolve(Store.self)
        #expect(storeRuns.value == runsBefore + 2, "the store built from an incomplete config was kept")
    }
}
