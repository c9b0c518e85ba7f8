import Dispatch
import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Acyclic graphs resolved through child tasks under load and in the timings that once gave
/// false `.circularDependency` errors (from an adversarial probe of the coordinator's cycle
/// search with branches): a branch point whose factory returned no longer marks a path; merging
/// groups goes on until no publication wait is left in a cycle; a wait whose slot was handed
/// off counts as a wait on the slot's builder. Every resolve must succeed, every factory run once.
@Suite struct ChildTaskBranchStressTests {
    typealias Obj = any AnyObject & Sendable
    final class Root: Sendable {}
    final class Mid: Sendable {}
    final class Slow: Sendable {}
    final class Side: Sendable {}
    final class Leaf: Sendable {}
    final class Top: Sendable {
        let parts: [Obj]
        init(_ parts: [Obj]) { self.parts = parts }
    }

    // MARK: 1. A cancelled child's handed-off build keeps a stale branch ancestry

    /// Top (unique) resolves Mid (unique, async), whose factory races two children in a task
    /// group and cancels the loser; the loser was asking for Slow (async singleton, handed
    /// off). Mid returns; Top then resolves Side (sync singleton, built inline at the frame
    /// Mid had). Slow's factory, still running, asks for Side: acyclic (Side needs nothing).
    @Test(.serialized, arguments: [false, true])
    func aCancelledChildsHandedOffBuildDoesNotMistakeASiblingFrameForItsPath(useAsyncLet: Bool) async throws {
        let container = Container(name: "root")
        let sideStarted = AsyncLatch()
        let slowAsked = AsyncLatch()
        let slowRuns = Counter()
        let sideRuns = Counter()
        let slowStarted = AsyncLatch()
        container.register(Side.self, lifetime: .singleton) { _ in
            sideRuns.increment()
            sideStarted.open()
            // Busy (synchronously) long enough for Slow's factory to ask for Side.
            let deadline = Date().addingTimeInterval(0.3)
            while Date() < deadline && !slowAsked.isOpen { usleep(1000) }
            usleep(300_000)
            return Side()
        }
        container.register(Slow.self, lifetime: .singleton) { r in
            slowRuns.increment()
            slowStarted.open()
            await sideStarted.wait(atMost: 3)
            slowAsked.open()
            _ = try await r.resolveAsync(Side.self)
            return Slow()
        }
        container.register(Mid.self) { r in
            if useAsyncLet {
                async let _: Slow = r.resolveAsync()  // never awaited: cancelled and awaited at scope exit
                await slowStarted.wait(atMost: 3)
                return Mid()
            }
            return try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask {
                    _ = try await r.resolveAsync(Slow.self)
                    return 1
                }
                group.addTask {
                    await slowStarted.wait(atMost: 3)
                    return 2
                }
                _ = try await group.next()
                group.cancelAll()
                while let _ = try? await group.next() {}
                return Mid()
            }
        }
        container.register(Top.self) { r in
            let mid: Mid = try await r.resolveAsync()
            let side: Side = try await r.resolveAsync()
            return Top([mid, side])
        }
        let outcome = try await withAsyncWatchdog(seconds: 10) {
            await Result { try await container.resolveAsync(Top.self) }
        }
        guard let outcome else { return }
        #expect(outcomeName(outcome) == "value", "\(outcome)")
        let slow = try await withAsyncWatchdog(seconds: 10) {
            await Result { try await container.resolveAsync(Slow.self) }
        }
        if let slow { #expect(outcomeName(slow) == "value", "\(slow)") }
        #expect(slowRuns.value == 1)
        #expect(sideRuns.value == 1)
    }

    // MARK: 2. Children need a singleton the parent builds in a deeper uncached frame

    @Test func childrenNeedingSingletonsTheParentBuildsInDeeperUncachedFramesGetThemOnce() async throws {
        try await checkRoundsInNewContainers(300) { _, container in
            var failures: [String] = []
            let leafRuns = Counter()
            let rootRuns = Counter()
            container.register(Root.self, lifetime: .singleton) { _ in
                rootRuns.increment()
                if Int.random(in: 0..<3) == 0 { await Task.yield() }
                if Int.random(in: 0..<4) == 0 { try? await Task.sleep(for: .microseconds(Int.random(in: 1...300))) }
                return Root()
            }
            container.register(Leaf.self, lifetime: .singleton) { r in
                leafRuns.increment()
                if Int.random(in: 0..<3) == 0 { await Task.yield() }
                _ = try await r.resolveAsync(Root.self)
                return Leaf()
            }
            // Uncached: waits on singletons the children build.
            container.register(Side.self) { r in
                if Int.random(in: 0..<2) == 0 { await Task.yield() }
                _ = try await r.resolveAsync(Leaf.self)
                _ = try await r.resolveAsync(Root.self)
                return Side()
            }
            container.register(Mid.self, lifetime: .graph) { r in
                _ = try await r.resolveAsync(Side.self)
                return Mid()
            }
            container.register(Top.self) { r in
                async let a: Leaf = r.resolveAsync()
                async let b: Root = r.resolveAsync()
                let mid: Mid = try await r.resolveAsync()
                let parts: [Obj] = try await withThrowingTaskGroup(of: Obj.self) { group in
                    for i in 0..<3 {
                        group.addTask {
                            if i == 1 { await Task.yield() }
                            return i == 0 ? try await r.resolveAsync(Leaf.self) : try await r.resolveAsync(Mid.self)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                return Top([try await a, try await b, mid] + parts)
            }
            // Two top-level resolves at once, plus a bare Leaf.
            async let one = Result { try await container.resolveAsync(Top.self) }
            async let two = Result { try await container.resolveAsync(Top.self) }
            async let three = Result { try await container.resolveAsync(Leaf.self) }
            let (x, y, z) = await (one, two, three)
            for (name, o) in [("one", outcomeName(x)), ("two", outcomeName(y)), ("three", outcomeName(z))]
            where o != "value" {
                failures.append("\(name): \(o)")
            }
            if leafRuns.value != 1 || rootRuns.value != 1 {
                failures.append("leaf \(leafRuns.value) root \(rootRuns.value)")
            }
            if case .success(let t1) = x, case .success(let t2) = y, case .success(let l) = z {
                if t1.parts[0] !== l || t2.parts[0] !== l || t1.parts[1] !== t2.parts[1] {
                    failures.append("different instances")
                }
            }
            return failures
        }
    }

    // MARK: 3. Several top-level resolves with overlapping singletons, each using task groups

    // `syncS2: true` (a synchronous factory whose synchronous requests meet async builds and
    // throw `.requiresAsync`) once left, under LeakSanitizer, retired contexts that a merge had
    // put back into a group (`merge` moved every listed member, retired ones included).
    @Test(arguments: [false, true])
    func concurrentResolvesOfOverlappingSingletonsThroughTaskGroupsSucceedWithOneRunEach(syncS2: Bool) async throws {
        try await checkRoundsInNewContainers(200, watchdog: 90) { _, container in
            var failures: [String] = []
            let counters = (0..<6).map { _ in Counter() }
            // Six singletons S0..S5, tagged; Si depends on S(j) for j < i in a fixed DAG,
            // resolving its deps in a task group. Some have sync factories.
            let deps: [[Int]] = [[], [0], [0], [1, 2], [0, 3], [2, 4]]
            for i in 0..<6 {
                let tag = ServiceTag("s\(i)")
                let counter = counters[i]
                let myDeps = deps[i]
                if i == 2 && syncS2 {
                    container.register(Leaf.self, tag: tag, lifetime: .singleton) { r in
                        counter.increment()
                        _ = try r.resolve(Leaf.self, tag: ServiceTag("s0"))
                        return Leaf()
                    }
                    continue
                }
                container.register(Leaf.self, tag: tag, lifetime: .singleton) { r in
                    counter.increment()
                    if Int.random(in: 0..<3) == 0 { await Task.yield() }
                    if Int.random(in: 0..<5) == 0 {
                        try? await Task.sleep(for: .microseconds(Int.random(in: 1...500)))
                    }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for d in myDeps {
                            group.addTask { _ = try await r.resolveAsync(Leaf.self, tag: ServiceTag("s\(d)")) }
                        }
                        try await group.waitForAll()
                    }
                    return Leaf()
                }
            }
            // Uncached entry points resolving random subsets via task groups.
            container.register(Top.self) { r in
                let picks = (0..<3).map { _ in Int.random(in: 0..<6) }
                let parts: [Obj] = try await withThrowingTaskGroup(of: Obj.self) { group in
                    for p in picks {
                        group.addTask { try await r.resolveAsync(Leaf.self, tag: ServiceTag("s\(p)")) }
                    }
                    // Meanwhile, the factory itself resolves one too.
                    let own: Leaf = try await r.resolveAsync(
                        Leaf.self, tag: ServiceTag("s\(Int.random(in: 0..<6))"))
                    var all: [Obj] = [own]
                    for try await part in group { all.append(part) }
                    return all
                }
                return Top(parts)
            }
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<4 {
                    group.addTask { describe(await Result { try await container.resolveAsync(Top.self) }) }
                }
                group.addTask {
                    describe(await Result { try await container.resolveAsync(Leaf.self, tag: ServiceTag("s5")) })
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for o in outcomes where o != "value" && !(syncS2 && o == "requiresAsync") {
                failures.append("\(o)")
            }
            if syncS2 { return failures }
            for (i, c) in counters.enumerated() where c.value > 1 {
                failures.append("s\(i) ran \(c.value)")
            }
            // every one reachable now resolves to the same instance twice
            for i in 0..<6 {
                if let a = try? await container.resolveAsync(Leaf.self, tag: ServiceTag("s\(i)")),
                    let b = try? container.resolve(Leaf.self, tag: ServiceTag("s\(i)")), a !== b
                {
                    failures.append("s\(i) differs")
                }
            }
            for (i, c) in counters.enumerated() where c.value != 1 {
                failures.append("s\(i) ran \(c.value) after all")
            }
            return failures
        }
    }

    // MARK: 4. Sync resolves on plain threads racing async resolves with branches

    @Test func synchronousResolvesOnThreadsRacingBranchesGetTheInstanceOrRequiresAsync() async throws {
        try await checkRoundsInNewContainers(150, watchdog: 90) { _, container in
            var failures: [String] = []
            let rootRuns = Counter()
            let midRuns = Counter()
            container.register(Root.self, lifetime: .singleton) { _ in
                rootRuns.increment()
                usleep(UInt32.random(in: 0...300))
                return Root()
            }
            container.register(Mid.self, lifetime: .singleton) { r in
                midRuns.increment()
                usleep(UInt32.random(in: 0...300))
                return Mid()
            }
            container.register(Side.self) { r in
                async let root: Root = r.resolveAsync()
                async let mid: Mid = r.resolveAsync()
                _ = try await (root, mid)
                return Side()
            }
            let syncOutcomes = Guarded<[String]>([])
            async let asyncOutcome = withTaskGroup(of: String.self) { group in
                for _ in 0..<3 {
                    group.addTask { outcomeName(await Result { try await container.resolveAsync(Side.self) }) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            async let threads: Void = withTaskGroup(of: Void.self) { group in
                for i in 0..<2 {
                    group.addTask {
                        let name = await runOnNewThread { () -> String in
                            do {
                                if i == 0 {
                                    _ = try container.resolve(Mid.self)
                                } else {
                                    _ = try container.resolve(Root.self)
                                }
                                return "value"
                            } catch { return errorName(error) }
                        }
                        syncOutcomes.withLock { $0.append(name) }
                    }
                }
            }
            let asyncs = await asyncOutcome
            await threads
            for o in asyncs where o != "value" { failures.append("async: \(o)") }
            for o in syncOutcomes.current where o != "value" && o != "requiresAsync" {
                failures.append("sync: \(o)")
            }
            if asyncs.allSatisfy({ $0 == "value" }), rootRuns.value != 1 || midRuns.value != 1 {
                failures.append("root \(rootRuns.value) mid \(midRuns.value)")
            }
            return failures
        }
    }

    // MARK: 5. perContainer across children, with branches

    @Test func perContainerInstancesResolvedInBranchesAreOnePerContainer() async throws {
        try await checkRounds(200) { round in
            var failures: [String] = []
            let root = Container(name: "root")
            let runs = Counter()
            root.register(Root.self, lifetime: .singleton) { _ in
                if Bool.random() { await Task.yield() }
                return Root()
            }
            root.register(Slow.self, lifetime: .perContainer) { r in
                runs.increment()
                async let a: Root = r.resolveAsync()
                if Bool.random() { await Task.yield() }
                _ = try await a
                return Slow()
            }
            root.register(Top.self) { r in
                let c = r.container
                async let x: Slow = r.resolveAsync()
                async let y: Slow = c.resolveAsync()
                let z: Slow = try await r.resolveAsync()
                return Top([try await x, try await y, z])
            }
            let children = (0..<3).map { root.makeChild(name: "c\($0)") }
            let tops = await withTaskGroup(of: (Int, Result<Top, any Error>).self) { group in
                for (i, child) in children.enumerated() {
                    for _ in 0..<2 {
                        group.addTask { (i, await Result { try await child.resolveAsync(Top.self) }) }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            var perChild: [Int: ObjectIdentifier] = [:]
            for (i, t) in tops {
                switch t {
                case .failure(let e): failures.append("\(errorName(e))")
                case .success(let top):
                    let ids = Set(top.parts.map { ObjectIdentifier($0) })
                    if ids.count != 1 { failures.append("mixed in one top") }
                    if let known = perChild[i], known != ids.first! {
                        failures.append("two in child \(i)")
                    }
                    perChild[i] = ids.first!
                }
            }
            if runs.value != 3 { failures.append("runs \(runs.value)") }
            _ = children
            return failures
        }
    }

    // MARK: 6. Handed-off async singleton using child tasks, requested from many tasks

    @Test func aHandedOffBuildUsingChildTasksAskedByManyTasksRunsOnce() async throws {
        try await checkRoundsInNewContainers(200) { _, container in
            var failures: [String] = []
            let runs = (0..<3).map { _ in Counter() }
            container.register(Root.self, lifetime: .singleton) { _ in
                runs[0].increment()
                if Bool.random() { try? await Task.sleep(for: .microseconds(Int.random(in: 1...200))) }
                return Root()
            }
            container.register(Mid.self, lifetime: .singleton) { r in
                runs[1].increment()
                async let a: Root = r.resolveAsync()
                if Bool.random() { await Task.yield() }
                _ = try await a
                return Mid()
            }
            container.register(Slow.self, lifetime: .weakSingleton) { r in
                runs[2].increment()
                return try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { _ = try await r.resolveAsync(Mid.self) }
                    group.addTask { _ = try await r.resolveAsync(Root.self) }
                    try await group.waitForAll()
                    return Slow()
                }
            }
            let kept = Guarded<[Slow]>([])
            let outcomes = await withTaskGroup(of: String.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        if i % 2 == 0 { await Task.yield() }
                        let r = await Result { () -> Obj in
                            switch i % 3 {
                            case 0:
                                let s = try await container.resolveAsync(Slow.self)
                                kept.withLock { $0.append(s) }
                                return s
                            case 1: return try await container.resolveAsync(Mid.self)
                            default: return try await container.resolveAsync(Root.self)
                            }
                        }
                        return outcomeName(r)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for o in outcomes where o != "value" { failures.append("\(o)") }
            if runs[0].value != 1 || runs[1].value != 1 || runs[2].value != 1 {
                failures.append("runs \(runs.map(\.value))")
            }
            let s = kept.current
            if Set(s.map { ObjectIdentifier($0) }).count > 1 { failures.append("two Slows") }
            return failures
        }
    }

    // MARK: 7. Two publication waits: merging the first cycle's groups leaves the second

    final class S1: Sendable {}
    final class S2: Sendable {}
    final class S3: Sendable {}
    final class Shared: Sendable {}
    final class CTop: Sendable {}
    final class YTop: Sendable {}

    /// C built S1 and S3 (not published: C's resolve goes on) and then asks for Shared; Y built
    /// S2 and waits for C's S3; Shared's build (started by W) asks, in two child tasks, for S1
    /// (built by C) and S2 (built by Y). Acyclic: CTop -> S1, S3, Shared; YTop -> S2, S3;
    /// Shared -> S1, S2. Every resolve must succeed.
    @Test func aSecondPublicationWaitAfterTheFirstMergeIsNotACycle() async throws {
        let container = Container(name: "root")
        let cBuilt = AsyncLatch()
        let goC = AsyncLatch()
        let runs = Counter()
        container.register(S1.self, lifetime: .singleton) { _ in S1() }
        container.register(S2.self, lifetime: .singleton) { _ in S2() }
        container.register(S3.self, lifetime: .singleton) { _ in S3() }
        container.register(Shared.self, lifetime: .singleton) { r in
            runs.increment()
            async let one: S1 = r.resolveAsync()
            try await Task.sleep(for: .milliseconds(50))  // the first child waits on C first
            async let two: S2 = r.resolveAsync()
            _ = try await (one, two)
            return Shared()
        }
        container.register(CTop.self) { r in
            _ = try await r.resolveAsync(S1.self)
            _ = try await r.resolveAsync(S3.self)
            cBuilt.open()
            await goC.wait(atMost: 5)
            _ = try await r.resolveAsync(Shared.self)
            return CTop()
        }
        container.register(YTop.self) { r in
            await cBuilt.wait(atMost: 5)
            _ = try await r.resolveAsync(S2.self)
            _ = try await r.resolveAsync(S3.self)  // waits for C's resolve
            return YTop()
        }
        let outcomes = try await withAsyncWatchdog(seconds: 10) { () -> [String] in
            async let c = Result { _ = try await container.resolveAsync(CTop.self) }
            async let y = Result { _ = try await container.resolveAsync(YTop.self) }
            await cBuilt.wait(atMost: 5)
            try await Task.sleep(for: .milliseconds(50))  // Y waits on C
            async let w = Result { _ = try await container.resolveAsync(Shared.self) }
            try await Task.sleep(for: .milliseconds(150))  // both children wait
            goC.open()
            return await [describe(c), describe(y), describe(w)]
        }
        #expect(outcomes == ["value", "value", "value"], "\(outcomes ?? [])")
        #expect(runs.value == 1)
    }
}

private func describe<T>(_ r: Result<T, any Error>) -> String {
    let name = outcomeName(r)
    if name == "circularDependency", case .failure(let e) = r { return "circularDependency: \(e)" }
    return name
}
