import Dispatch
import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Concurrency article (Sources/ScopeGraph/ScopeGraph.docc/Concurrency.md), as the
// article shows it; Scripts/docs/check-articles.py fails when the two differ. The behaviour it
// describes across threads is tested by ConcurrencyTests and StressTests.

@Suite struct ConcurrencyArticleTests {
    final class A: Sendable {
        func start() {}
    }
    final class B: Sendable {
        let a: A
        init(a: A) { self.a = a }
    }
    struct Top {
        let a: A
        let b: B
    }
    final class Index: Sendable {}

    /// "A cycle of waits from delayed publication": the registrations (one thread here). `A`
    /// has a block, so it is published only when the resolve that built it ends.
    @Test func topSharesTheSingletonsItsDependenciesUse() throws {
        let container = Container()
        container.register(A.self, lifetime: .singleton) { _ in A() }
            .onResolved { _, a in a.start() }  // a block: A is incomplete until its resolve ends
        container.register(B.self, lifetime: .singleton) { r in B(a: try r.resolve()) }
        container.register(Top.self) { r in Top(a: try r.resolve(), b: try r.resolve()) }  // graph
        let top = try container.resolve(Top.self)
        #expect(top.b.a === top.a)
    }

    /// "What a factory must not do": this registration deadlocks when `Index` is resolved, so it
    /// is compiled here and never called.
    func registerTheDeadlockingFactory(in container: Container) {
        container.register(Index.self, lifetime: .singleton) { r in
            let semaphore = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = try? container.resolve(Index.self)  // waits for this very factory
                semaphore.signal()
            }
            semaphore.wait()  // waits for that resolve: neither moves
            return Index()
        }
    }
}
