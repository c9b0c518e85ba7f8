import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Branches racing other resolves (from an adversarial probe of `ChildTaskBranchTests`' change):
/// a factory awaiting its child task waits outside the coordinator, so the coordinator counts a
/// resolve that waits on nothing as possibly awaiting its unfinished branches. Concurrent
/// resolves whose factories use child tasks then share instances instead of hanging, a cycle
/// across them is reported, and cancelling a caller keeps what its branches build for others.
@Suite struct ChildTaskBranchRaceTests {
    final class Pool: Sendable {}
    final class Cache: Sendable {}
    final class Handler: Sendable {
        let pool: Pool
        let cache: Cache
        init(_ pool: Pool, _ cache: Cache) { (self.pool, self.cache) = (pool, cache) }
    }
    final class Front: Sendable {
        let cache: Cache
        init(_ cache: Cache) { self.cache = cache }
    }
    final class Ping: Sendable {
        init(_ pong: Pong) {}
    }
    final class Pong: Sendable {
        init(_ ping: Ping) {}
    }
    final class Both: Sendable {}
    final class Later: Sendable {
        let task: Task<Pool, any Error>
        init(_ task: Task<Pool, any Error>) { self.task = task }
    }

    /// Two resolves of one handler at once; the handler resolves a pool and a cache in child
    /// tasks, and the cache's async factory resolves the pool in a child task of its own. Each
    /// round ends, with one pool and one cache for both.
    @Test(arguments: [false, true])
    func twoConcurrentResolvesOfADiamondThroughChildTasksShareOneInstanceOfEach(cacheUsesAChild: Bool) async throws {
        let rounds = try await withAsyncWatchdog(seconds: 30) { () -> Int in
            for round in 0..<300 {
                let container = Container(name: "round-\(round)")
                container.register(Pool.self, lifetime: .singleton) { _ in Pool() }
                container.register(Cache.self, lifetime: .singleton) { r in
                    if cacheUsesAChild {
                        async let pool: Pool = r.resolveAsync()
                        _ = try await pool
                    } else {
                        _ = try await r.resolveAsync(Pool.self)
                    }
                    return Cache()
                }
                container.register(Handler.self) { r in
                    async let pool: Pool = r.resolveAsync()
                    async let cache: Cache = r.resolveAsync()
                    return Handler(try await pool, try await cache)
                }
                async let first = container.resolveAsync(Handler.self)
                async let second = container.resolveAsync(Handler.self)
                let (one, other) = try await (first, second)
                #expect(one.pool === other.pool && one.cache === other.cache, "round \(round)")
            }
            return 300
        }
        #expect(rounds == 300)
    }

    /// A handler's resolve built the pool (not published yet) and asks, in a child task, for a
    /// cache another resolve is building, whose factory needs that pool: the two resolves
    /// merge, the cache is built once and holds the handler's pool.
    @Test func aChildWaitingOnAResolveThatWaitsOnItsParentMergesWithIt() async throws {
        let container = Container(name: "root")
        let poolBuilt = AsyncLatch()
        let cacheStarted = AsyncLatch()
        let cacheRuns = Counter()
        container.register(Pool.self, lifetime: .singleton) { _ in Pool() }
        container.register(Cache.self, lifetime: .singleton) { r in
            cacheRuns.increment()
            cacheStarted.open()
            _ = try await r.resolveAsync(Pool.self)
            return Cache()
        }
        container.register(Handler.self) { r in
            let pool: Pool = try await r.resolveAsync()
            poolBuilt.open()
            await cacheStarted.wait(atMost: 5)
            try await Task.sleep(for: .milliseconds(20))
            async let cache: Cache = r.resolveAsync()
            return Handler(pool, try await cache)
        }
        container.register(Front.self) { r in
            await poolBuilt.wait(atMost: 5)
            return Front(try await r.resolveAsync())
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) {
            async let handler = container.resolveAsync(Handler.self)
            async let front = container.resolveAsync(Front.self)
            return try await (handler, front)
        }
        guard let (handler, front) = outcome else { return }
        #expect(handler.cache === front.cache)
        #expect(cacheRuns.value == 1)
    }

    /// Ping's factory resolves Pong in a child task and Pong's resolves Ping in one, both
    /// builds under way in two resolves at once (or in two child tasks of one resolve): the
    /// cycle is reported instead of both waiting for ever.
    @Test(arguments: [false, true])
    func aCycleThroughChildTasksOfTwoBuildsIsReported(inOneResolve: Bool) async throws {
        let container = Container(name: "root")
        let meet = AsyncRendezvous()
        container.register(Ping.self, lifetime: .singleton) { r in
            _ = await meet.arriveFirst(atMost: 3)
            async let pong: Pong = r.resolveAsync()
            return Ping(try await pong)
        }
        container.register(Pong.self, lifetime: .singleton) { r in
            _ = await meet.arriveSecond(atMost: 3)
            async let ping: Ping = r.resolveAsync()
            return Pong(try await ping)
        }
        container.register(Both.self) { r in
            async let ping: Ping = r.resolveAsync()
            async let pong: Pong = r.resolveAsync()
            _ = try await (ping, pong)
            return Both()
        }
        let outcomes = try await withAsyncWatchdog(seconds: 10) { () -> [Result<Void, any Error>] in
            if inOneResolve { return [await Result { _ = try await container.resolveAsync(Both.self) }] }
            async let ping = Result { _ = try await container.resolveAsync(Ping.self) }
            async let pong = Result { _ = try await container.resolveAsync(Pong.self) }
            return await [ping, pong]
        }
        for outcome in outcomes ?? [] {
            #expect(outcome.resolutionError?.kind.caseName == "circularDependency", "\(outcomeName(outcome))")
        }
    }

    /// The task that started an async singleton's build is cancelled while the build's factory
    /// waits for its child task, which built another singleton: the build goes on, once, and
    /// both instances are published (the one the child built is the one the build holds).
    @Test func cancellingTheStarterKeepsWhatTheBuildsChildTasksBuilt() async throws {
        let container = Container(name: "root")
        let poolRuns = Counter()
        let cacheRuns = Counter()
        let childDone = AsyncLatch()
        let gate = AsyncLatch()
        container.register(Pool.self, lifetime: .singleton, counting: poolRuns) { Pool() }
        container.register(Front.self, lifetime: .singleton) { r in
            cacheRuns.increment()
            async let pool: Pool = r.resolveAsync()
            _ = try await pool
            childDone.open()
            await gate.wait(atMost: 5)
            return Front(Cache())
        }
        let starter = Task { try await container.resolveAsync(Front.self) }
        guard try await withAsyncWatchdog(seconds: 5, { await childDone.wait() }) != nil else { return }
        starter.cancel()
        _ = try await withAsyncWatchdog(seconds: 5) { await starter.result }
        gate.open()
        let front = try await withAsyncWatchdog(seconds: 5) { try await container.resolveAsync(Front.self) }
        #expect(front != nil)
        _ = try await container.resolveAsync(Pool.self)
        #expect(cacheRuns.value == 1)
        #expect(poolRuns.value == 1)
    }

    /// A child task hands an async singleton's build off; another task waits for that build;
    /// the top-level task is cancelled: the build goes on for the waiting task, one run.
    @Test func aBuildHandedOffByAChildTaskGoesOnWhenTheTopLevelTaskIsCancelled() async throws {
        let container = Container(name: "root")
        let held = GatedBuild<Pool>()
        container.registerHeldOpen(Pool.self, lifetime: .singleton, by: held, atMost: 5) { Pool() }
        container.register(Front.self) { r in
            async let pool: Pool = r.resolveAsync()
            _ = try await pool
            return Front(Cache())
        }
        let starter = Task { try await container.resolveAsync(Front.self) }
        guard try await withAsyncWatchdog(seconds: 5, { await held.started.wait() }) != nil else { return }
        // A task that waits for the build, started and settled before the starter is cancelled.
        let bystander = await startTasks(1) { _ in try await container.resolveAsync(Pool.self) }[0]
        starter.cancel()
        _ = try await withAsyncWatchdog(seconds: 5) { await starter.result }
        held.gate.open()
        let pool = try await withAsyncWatchdog(seconds: 5) { try await bystander.value.get() }
        guard let pool else { return }
        #expect(held.runs.value == 1)
        #expect(try container.resolve(Pool.self) === pool)
    }

    /// A task started by a nested async factory asks after that factory returned, while the
    /// outer factory (which awaits the task) still runs: it is a branch of the outer factory's
    /// resolve, and reads the pool that resolve built.
    @Test func aTaskOfANestedFactoryThatAsksAfterItReturnedIsABranchOfTheOuterFactory() async throws {
        let container = Container(name: "root")
        let returned = AsyncLatch()
        container.register(Pool.self, lifetime: .singleton) { _ in Pool() }
        container.register(Later.self) { r in
            await Task.yield()
            return Later(
                Task {
                    await returned.wait(atMost: 5)
                    return try await r.resolveAsync(Pool.self)
                })
        }
        container.register(Front.self) { r in
            let pool: Pool = try await r.resolveAsync()
            async let later: Later = r.resolveAsync()
            let task = try await later.task
            returned.open()
            #expect(try await task.value === pool)
            return Front(Cache())
        }
        let front = try await withAsyncWatchdog(seconds: 10) { try await container.resolveAsync(Front.self) }
        #expect(front != nil)
    }
}
