import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Cycles through async factories: a constructor cycle throws `.circularDependency` with its
/// path and never hangs, also when two tasks start it at its two ends; a property cycle started
/// from two tasks at once gives each one consistent pair or `.requiresAsync`, never a hang.
@Suite struct AsyncCycleTests {
    final class A: Sendable {
        let b: B?
        init(b: B?) { self.b = b }
    }
    final class B: @unchecked Sendable {
        // @unchecked: `a` is set in the initializer or once, by an onResolved block, before the
        // resolve returns. Weak: a pair built by a resolve that then failed (its group
        // discarded it) would otherwise keep itself alive through the test's own cycle.
        weak var a: A?
        init(a: A? = nil) { self.a = a }
    }

    static let allLifetimes: [Lifetime] = [.unique, .graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer]

    /// A → B → A through async factories throws `.circularDependency` about A with the path
    /// ["A", "B", "A"] from `resolveAsync`, for every lifetime, and does not hang.
    @Test(arguments: allLifetimes)
    func anAsyncConstructorCycleThrowsCircularDependencyWithItsPath(lifetime: Lifetime) async throws {
        let container = Container(name: "root")
        container.register(A.self, lifetime: lifetime) { r in
            await Task.yield()
            return A(b: try await r.resolveAsync())
        }
        container.register(B.self, lifetime: lifetime) { r in
            await Task.yield()
            return B(a: try await r.resolveAsync())
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) {
            await Result { try await container.resolveAsync(A.self) }
        }
        guard let outcome else { return }
        let error = outcome.resolutionError
        #expect(error?.kind.caseName == "circularDependency", "\(outcomeName(outcome))")
        #expect(error?.key.typeName == "A")
        #expect(error?.pathDescriptions == ["A", "B", "A"])
    }

    /// The same cycle with one side synchronous (A async, B synchronous, resolving A with a
    /// plain `resolve`) is still the cycle, not a wait or `.requiresAsync`.
    @Test(arguments: [Lifetime.graph, .singleton])
    func aCycleThroughAnAsyncAndASynchronousFactoryIsACycle(lifetime: Lifetime) async throws {
        let container = Container(name: "root")
        container.register(A.self, lifetime: lifetime) { r in
            await Task.yield()
            return A(b: try await r.resolveAsync())
        }
        container.register(B.self, lifetime: lifetime) { r in B(a: try r.resolve()) }
        let outcome = try await withAsyncWatchdog(seconds: 10) {
            await Result { try await container.resolveAsync(A.self) }
        }
        guard let outcome else { return }
        let error = outcome.resolutionError
        #expect(error?.kind.caseName == "circularDependency", "\(outcomeName(outcome))")
        #expect(error?.pathDescriptions == ["A", "B", "A"])
    }

    /// Two tasks that start an async singleton constructor cycle at its two ends at once (both
    /// factories running, met at a rendezvous) both get `.circularDependency`, neither hangs,
    /// and nothing is cached: a later resolve reports the cycle again.
    @Test func twoTasksAtBothEndsOfAnAsyncSingletonConstructorCycleBothGetTheCycleError() async throws {
        for _ in 0..<10 {
            let container = Container(name: "root")
            let meeting = AsyncRendezvous()
            let met = Guarded<[Bool]>([])
            let concurrentPhase = Guarded(true)
            container.register(A.self, lifetime: .singleton) { r in
                if concurrentPhase.current {
                    let arrived = await meeting.arriveFirst()
                    met.withLock { $0.append(arrived) }
                }
                return A(b: try await r.resolveAsync())
            }
            container.register(B.self, lifetime: .singleton) { r in
                if concurrentPhase.current {
                    let arrived = await meeting.arriveSecond()
                    met.withLock { $0.append(arrived) }
                }
                return B(a: try await r.resolveAsync())
            }
            let outcomes = try await withAsyncWatchdog(seconds: 10) { () -> [String] in
                async let fromA = Result { try await container.resolveAsync(A.self) }
                async let fromB = Result { try await container.resolveAsync(B.self) }
                return [outcomeName(await fromA), outcomeName(await fromB)]
            }
            guard let outcomes else { return }
            #expect(met.current == [true, true], "both factories ran at once")
            #expect(outcomes == ["circularDependency", "circularDependency"])
            concurrentPhase.withLock { $0 = false }
            let later = try await withAsyncWatchdog(seconds: 10) {
                await Result { try await container.resolveAsync(A.self) }
            }
            guard let later else { return }
            #expect(later.resolutionError?.pathDescriptions == ["A", "B", "A"], "\(outcomeName(later))")
            // One failing round says it all; the rounds are there to catch rare interleavings.
            let passed =
                met.current == [true, true] && outcomes == ["circularDependency", "circularDependency"]
                && later.resolutionError?.pathDescriptions == ["A", "B", "A"]
            if !passed { break }
        }
    }

    /// A property cycle through async singletons (A's async factory takes B; B gets A in
    /// `onResolved`) started from two tasks at once, one at each end. B's block is
    /// synchronous: when it runs before A's build has finished, it finds A being built by an
    /// async resolve and throws `.requiresAsync` (the contract: a synchronous resolve never
    /// waits for an async build). So each task gets either the one consistent pair or that
    /// error; never a hang, never a half-initialised pair, and what is cached is consistent.
    @Test func twoTasksAtBothEndsOfAnAsyncPropertyCycleGetOneConsistentPairOrRequiresAsync() async throws {
        for _ in 0..<10 {
            let container = Container(name: "root")
            let meeting = AsyncRendezvous()
            container.register(A.self, lifetime: .singleton) { r in
                _ = await meeting.arriveFirst()
                return A(b: try await r.resolveAsync())
            }
            container.register(B.self, lifetime: .singleton) { _ in
                _ = await meeting.arriveSecond()
                return B()
            }.onResolved { r, b in b.a = try r.resolve(A.self) }
            let outcome = try await withAsyncWatchdog(seconds: 10) {
                () -> (Result<A, any Error>, Result<B, any Error>) in
                async let fromA = Result { try await container.resolveAsync(A.self) }
                async let fromB = Result { try await container.resolveAsync(B.self) }
                return (await fromA, await fromB)
            }
            guard let (fromA, fromB) = outcome else { return }
            for result in [outcomeName(fromA), outcomeName(fromB)] {
                #expect(result == "value" || result == "requiresAsync", "\(result)")
            }
            if let a = fromA.successValue {
                #expect(a.b?.a === a, "A's B points back to A")
            }
            if let b = fromB.successValue {
                #expect(b.a?.b === b, "B's A points back to B")
            }
            // Afterwards the cache holds one consistent pair.
            let a = try await container.resolveAsync(A.self)
            let b = try await container.resolveAsync(B.self)
            #expect(a.b === b)
            #expect(b.a === a)
        }
    }
}
