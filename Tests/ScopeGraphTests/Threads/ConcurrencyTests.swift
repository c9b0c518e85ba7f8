import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// The contract's "Concurrency guarantees", each made deterministic: rendezvous instead of
/// sleeps wherever an interleaving must happen, and a watchdog on every multi-thread run.
@Suite struct ConcurrencyTests: ServiceFixtures {
    final class Slow: @unchecked Sendable {}
    final class Cached: @unchecked Sendable {}
    final class UsesCached: @unchecked Sendable {
        let cached: Cached
        init(cached: Cached) { self.cached = cached }
    }
    final class Flagged: @unchecked Sendable {
        private let lock = NSLock()
        private var _ready = false
        var ready: Bool {
            get {
                lock.lock()
                defer { lock.unlock() }
                return _ready
            }
            set {
                lock.lock()
                _ready = newValue
                lock.unlock()
            }
        }
    }

    @Test func cachedFactoryRunsExactlyOnceUnderContention() async {
        for _ in 0..<20 {
            let container = Container()
            let runs = Counter()
            container.register(Slow.self, lifetime: .singleton) { _ in
                runs.increment()
                Thread.sleep(forTimeInterval: 0.002)
                return Slow()
            }
            let seen = Guarded<[ObjectIdentifier]>([])
            await runOnThreads(8) { _ in
                guard let slow = try? container.resolve(Slow.self) else { return }
                seen.withLock { $0.append(ObjectIdentifier(slow)) }
            }
            #expect(runs.value == 1)
            #expect(seen.current.count == 8)
            #expect(Set(seen.current).count == 1)
        }
    }

    @Test(arguments: [Lifetime.singleton, .weakSingleton, .eagerSingleton, .perContainer])
    func everyCachedLifetimeBuildsOncePerSlot(lifetime: Lifetime) async {
        let container = Container()
        let runs = Counter()
        container.register(Slow.self, lifetime: lifetime) { _ in
            runs.increment()
            Thread.sleep(forTimeInterval: 0.002)
            return Slow()
        }
        let seen = Guarded<[Slow]>([])
        await runOnThreads(8) { _ in
            if let slow = try? container.resolve(Slow.self) { seen.withLock { $0.append(slow) } }
        }
        #expect(runs.value == 1)
        #expect(Set(seen.current.map(ObjectIdentifier.init)).count == 1)
    }

    /// A request scope's first read of its request-scoped service (the registration found in
    /// the parent's memo, built and published as the resolve's last act) builds once however
    /// many threads ask at once; with an `onResolved` block, the block runs once too.
    @Test(arguments: [false, true])
    func aRequestScopesServiceBuildsOnceWhenThreadsAskTogether(withBlock: Bool) async throws {
        let app = Container(name: "app")
        let runs = Counter()
        let blocks = Counter()
        let registration = app.register(Slow.self, lifetime: .perContainer) { _ in
            runs.increment()
            Thread.sleep(forTimeInterval: 0.002)
            return Slow()
        }
        if withBlock { registration.onResolved { _, _ in blocks.increment() } }
        // Earlier requests make the app's memo answer for the key, as in a running server.
        for number in 0..<4 { _ = try? app.makeChild(name: "warm-\(number)").resolve(Slow.self) }
        #expect(runs.value == 4)
        let request = app.makeChild(name: "request")
        let seen = Guarded<[Slow]>([])
        await runOnThreads(8) { _ in
            if let slow = try? request.resolve(Slow.self) { seen.withLock { $0.append(slow) } }
        }
        #expect(runs.value == 5)
        #expect(blocks.value == (withBlock ? 5 : 0))
        #expect(seen.current.count == 8)
        #expect(Set(seen.current.map(ObjectIdentifier.init)).count == 1)
        #expect(try request.resolve(Slow.self) === seen.current.first)
    }

    /// Children that collaborate with their parent are its dependents (held weakly). While
    /// their owner drops them, other containers keep linking to the parent, which prunes its
    /// links to dropped containers under its lock: the check must not free a child there (its
    /// `deinit` takes the same lock). A hang fails the test (bounded at 60 s).
    @Test func droppingChildrenThatLinkToTheirParentWhileOthersLinkToItDoesNotDeadlock() async {
        let parent = Container(name: "parent")
        let done = Guarded(false)
        let finished = await runOnThreads(2, timeout: 60) { index in
            if index == 0 {
                for _ in 0..<400 {
                    var batch = (0..<64).map { parent.makeChild(name: "child-\($0)") }
                    for child in batch { child.collaborate(with: parent) }
                    while !batch.isEmpty { batch.removeLast() }
                }
                done.withLock { $0 = true }
            } else {
                while !done.current { Container(name: "linker").collaborate(with: parent) }
            }
        }
        #expect(finished)
        guard finished else { return }  // a deadlocked thread still holds the parent's lock
        #expect(parent.children.isEmpty)
    }

    @Test func readingACachedInstanceNeverWaitsForAnotherThreadsFactory() async {
        let container = Container()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        container.register(Slow.self, lifetime: .singleton) { _ in
            started.signal()
            _ = release.wait(timeout: .now() + 10)
            return Slow()
        }
        container.register(Cached.self, lifetime: .singleton) { _ in Cached() }
        container.register(UsesCached.self, lifetime: .unique) { r in UsesCached(cached: try r.resolve()) }
        let cached = try? container.resolve(Cached.self)

        _ = StartedThread { _ = try? container.resolve(Slow.self) }
        #expect(started.wait(timeout: .now() + 5) == .success)
        // While the slow factory is blocked, cached reads and uncached graphs over cached
        // dependencies complete on another thread.
        let results = Guarded<[ObjectIdentifier]>([])
        let finished = await runOnThreads(1, timeout: 5) { _ in
            if let again = try? container.resolve(Cached.self), let user = try? container.resolve(UsesCached.self) {
                results.withLock { $0 = [ObjectIdentifier(again), ObjectIdentifier(user.cached)] }
            }
        }
        release.signal()
        #expect(finished)
        #expect(results.current == [ObjectIdentifier(cached!), ObjectIdentifier(cached!)])
    }

    @Test func independentSingletonsBuildInParallel() async {
        // Each factory waits until the other has started: with one construction lock for all
        // singletons this would never finish, and the watchdog would fail the test.
        let container = Container()
        let meeting = Rendezvous()
        let met = Guarded<[Bool]>([])
        container.register(Left.self, lifetime: .singleton) { _ in
            meeting.arrive(first: true, recordingIn: met)
            return Left()
        }
        container.register(Right.self, lifetime: .singleton) { _ in
            meeting.arrive(first: false, recordingIn: met)
            return Right()
        }
        await runOnThreads(2) { index in
            if index == 0 { _ = try? container.resolve(Left.self) } else { _ = try? container.resolve(Right.self) }
        }
        #expect(met.current == [true, true])
    }

    @Test func oppositeDirectionResolvesAcrossCollaboratorsDoNotDeadlock() async {
        for _ in 0..<50 {
            let first = Container(name: "first")
            let second = Container(name: "second")
            first.collaborateBothWays(with: second)
            first.register(Left.self, lifetime: .singleton) { _ in Left() }
            second.register(Right.self, lifetime: .singleton) { _ in Right() }
            // Each side's service needs the other side's singleton.
            first.register(Cached.self, lifetime: .singleton, needing: Right.self) { Cached() }
            second.register(Slow.self, lifetime: .singleton, needing: Left.self) { Slow() }
            let failures = Counter()
            await runOnThreads(4) { index in
                do {
                    if index % 2 == 0 {
                        _ = try first.resolve(Slow.self)
                        _ = try first.resolve(Cached.self)
                    } else {
                        _ = try second.resolve(Cached.self)
                        _ = try second.resolve(Slow.self)
                    }
                } catch { failures.increment() }
            }
            #expect(failures.value == 0)
        }
    }

    @Test func factoryThatWaitsForAResolveOnAnotherThreadCompletes() async throws {
        let container = Container()
        defer { container.removeAll() }  // the factory captures the container
        container.register(Cached.self, lifetime: .singleton) { _ in Cached() }
        container.register(Slow.self, lifetime: .singleton) { _ in
            let cached = try? StartedThread { try container.resolve(Cached.self) }.value(timeout: 5)
            // DispatchQueue.global().async runs elsewhere too.
            let second = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = try? container.resolve(Cached.self)
                second.signal()
            }
            _ = second.wait(timeout: .now() + 5)
            if cached == nil { throw CancellationError() }
            return Slow()
        }
        let finished = await runOnThreads(1) { _ in _ = try? container.resolve(Slow.self) }
        #expect(finished)
        #expect(try container.resolveIfRegistered(Slow.self) != nil)
    }

    @Test func aResolveOnAnotherThreadIsNotACycle() throws {
        // A's factory resolves B on another thread (a separate resolution) and waits for it;
        // B needs nothing A is building, so no cycle error and no deadlock.
        let container = Container()
        defer { container.removeAll() }  // the factory captures the container
        container.register(Right.self, lifetime: .unique) { _ in Right() }
        container.register(Left.self, lifetime: .singleton) { _ in
            let right = try? StartedThread { try container.resolve(Right.self) }.value(timeout: 5)
            return Left(right: right ?? nil)
        }
        let left = try container.resolve(Left.self)
        #expect(left.right != nil)
    }

    /// Two threads that resolve the two ends of a property cycle at once (both factories
    /// running, met at a rendezvous) end with one consistent pair, each factory having run once.
    @Test func twoThreadsAtBothEndsOfAPropertyCycleGetOneConsistentPair() async throws {
        for _ in 0..<20 {
            let container = Container()
            let meeting = Rendezvous()
            let met = Guarded<[Bool]>([])
            let leftRuns = Counter()
            let rightRuns = Counter()
            container.register(Left.self, lifetime: .singleton) { _ in
                leftRuns.increment()
                meeting.arrive(first: true, timeout: 2, recordingIn: met)
                return Left()
            }.onResolved { r, left in left.right = try r.resolve() }
            container.register(Right.self, lifetime: .singleton) { _ in
                rightRuns.increment()
                meeting.arrive(first: false, timeout: 2, recordingIn: met)
                return Right()
            }.onResolved { r, right in right.left = try r.resolve() }

            let lefts = Guarded<[Left]>([])
            let rights = Guarded<[Right]>([])
            let errors = Guarded<[String]>([])
            await runOnThreads(2) { index in
                do {
                    if index == 0 {
                        let left = try container.resolve(Left.self)
                        lefts.withLock { $0.append(left) }
                    } else {
                        let right = try container.resolve(Right.self)
                        rights.withLock { $0.append(right) }
                    }
                } catch { errors.withLock { $0.append("\(error)") } }
            }
            #expect(met.current == [true, true], "both factories ran at once")
            #expect(errors.current.isEmpty)
            #expect(leftRuns.value == 1)
            #expect(rightRuns.value == 1)
            guard let left = lefts.current.first, let right = rights.current.first else { continue }
            defer { left.right = nil }  // the test's left <-> right cycle
            #expect(left.right === right)
            #expect(right.left === left)
            #expect(try container.resolve(Left.self) === left)
            #expect(try container.resolve(Right.self) === right)
        }
    }

    /// Resolves `Left` on one thread and `Right` on another, at once: what each threw, by
    /// thread (0 resolved `Left`, 1 `Right`; no entry: it returned).
    static func errorsResolvingBothEnds(of container: Container) async -> [Int: any Error] {
        let errors = Guarded<[Int: any Error]>([:])
        await runOnThreads(2) { index in
            do {
                if index == 0 { _ = try container.resolve(Left.self) } else { _ = try container.resolve(Right.self) }
            } catch { errors.withLock { $0[index] = error } }
        }
        return errors.current
    }

    /// Two threads that start a constructor cycle at both ends at once (both factories running,
    /// met at a rendezvous) both throw the group's one `.circularDependency` error, whose path
    /// runs from the top-level request of the resolve that closed the cycle, through the key
    /// the other thread builds, back to the repeated key; nothing is cached.
    @Test func twoThreadsAtBothEndsOfAConstructorCycleBothGetTheCycleError() async {
        for _ in 0..<20 {
            let container = Container()
            let meeting = Rendezvous()
            let met = Guarded<[Bool]>([])
            let concurrentPhase = Guarded(true)
            container.register(Left.self, lifetime: .singleton) { r in
                if concurrentPhase.current {
                    meeting.arrive(first: true, timeout: 2, recordingIn: met)
                }
                return Left(right: try r.resolve())
            }
            container.register(Right.self, lifetime: .singleton) { r in
                if concurrentPhase.current {
                    meeting.arrive(first: false, timeout: 2, recordingIn: met)
                }
                return Right(left: try r.resolve())
            }
            let errors = await Self.errorsResolvingBothEnds(of: container)
            let outcomes = errors.mapValues { ($0 as? ResolutionError)?.kind.caseName ?? "other: \($0)" }
            let paths = errors.compactMapValues { ($0 as? ResolutionError)?.path.map(\.typeName) }
            #expect(met.current == [true, true], "both factories ran at once")
            #expect(outcomes == [0: "circularDependency", 1: "circularDependency"])
            // Either thread may be the one that closes the cycle; both report that one's path.
            let path = paths[0]
            #expect(path == ["Left", "Right", "Left"] || path == ["Right", "Left", "Right"])
            #expect(paths[1] == path, "every member throws the same error")
            concurrentPhase.withLock { $0 = false }
            // Nothing was cached: a single-thread resolve reports the cycle with its path.
            do {
                _ = try container.resolve(Left.self)
                Issue.record("the cycle resolved")
            } catch let error as ResolutionError {
                #expect(error.path.map(\.typeName) == ["Left", "Right", "Left"])
            } catch { Issue.record("unexpected \(error)") }
        }
    }

    /// A singleton is published only after its `onResolved` blocks have run: a reader on
    /// another thread that asks while the block runs waits for it, and gets the instance as the
    /// block left it.
    @Test func anInstanceIsPublishedOnlyAfterItsBlocksFinish() {
        for _ in 0..<3 {
            let container = Container()
            let blockStarted = DispatchSemaphore(value: 0)
            let finishBlock = DispatchSemaphore(value: 0)
            let registration = container.register(Flagged.self, lifetime: .singleton) { _ in Flagged() }
                .onResolved { _, flagged in
                    blockStarted.signal()
                    _ = finishBlock.wait(timeout: .now() + 5)
                    flagged.ready = true
                }
            let builder = StartedThread { (try? container.resolve(Flagged.self))?.ready }
            #expect(blockStarted.wait(timeout: .now() + 5) == .success)

            let aboutToResolve = DispatchSemaphore(value: 0)
            let reader = StartedThread { () -> Bool? in
                aboutToResolve.signal()
                return (try? container.resolve(Flagged.self))?.ready
            }
            #expect(aboutToResolve.wait(timeout: .now() + 5) == .success)
            // The block is still held: the reader must wait for the build (the coordinator counts
            // it), and must not have returned (it would have got the instance half-built).
            #expect(registration.waitUntilSomeoneWaitsForItsBuild(), "the reader waits while the block runs")
            #expect(reader.result(timeout: 0) == nil, "the reader returned while the block ran")
            finishBlock.signal()
            let readerSaw = reader.result(timeout: 5)
            let builderSaw = builder.result(timeout: 5)
            #expect(readerSaw != nil && builderSaw != nil)
            #expect(builderSaw?.successValue == true)
            #expect(readerSaw?.successValue == true, "the reader saw the instance its block initialised")
        }
    }

    @Test func aFailedBuildIsRetriedByTheNextResolve() async {
        let container = Container()
        let attempts = Counter()
        struct Boom: Error {}
        container.register(Slow.self, lifetime: .singleton) { _ in
            attempts.increment()
            if attempts.value == 1 { throw Boom() }
            return Slow()
        }
        #expect(throws: ResolutionError.self) { try container.resolve(Slow.self) }
        let seen = Guarded<[ObjectIdentifier]>([])
        await runOnThreads(8) { _ in
            if let slow = try? container.resolve(Slow.self) { seen.withLock { $0.append(ObjectIdentifier(slow)) } }
        }
        #expect(attempts.value == 2)
        #expect(Set(seen.current).count == 1)
        #expect(seen.current.count == 8)
    }
}

extension ConcurrencyTests {
    /// Runs a closure when it is deallocated.
    final class DeinitHook: @unchecked Sendable {
        let onDeinit: @Sendable () -> Void
        init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }
    struct Boom: Error {}

    /// Instances a failed resolve discards are released outside every ScopeGraph lock, so a
    /// deinit that resolves (here: a singleton not built yet) neither deadlocks nor crashes.
    /// (`DeinitHook` has an `onResolved` block: incomplete until the resolve ends, it is
    /// discarded when the resolve fails.)
    @Test func aDeinitThatResolvesWhileAFailedResolveIsReleasedDoesNotDeadlock() async {
        let container = Container()
        defer { container.removeAll() }  // the factory captures the container
        let resolvedInDeinit = Guarded(false)
        container.register(Cached.self, lifetime: .singleton) { _ in Cached() }
        container.register(DeinitHook.self, lifetime: .singleton) { _ in
            DeinitHook { resolvedInDeinit.withLock { $0 = (try? container.resolve(Cached.self)) != nil } }
        }.onResolved { _, _ in }
        container.register(Slow.self, lifetime: .singleton) { r in
            _ = try r.resolve(DeinitHook.self)
            throw Boom()
        }
        let finished = await runOnThreads(1, timeout: 10) { _ in _ = try? container.resolve(Slow.self) }
        #expect(finished)
        #expect(resolvedInDeinit.current)
    }

    /// `remove` unlinks the registration before releasing its instance: a deinit that resolves
    /// the same key finds nothing, and no instance survives in the removed registration.
    @Test func removeLeavesNoInstanceBehindEvenWhenADeinitResolvesTheSameKey() throws {
        let container = Container()
        defer { container.removeAll() }  // the factory captures the container
        let alive = Guarded(0)
        let reResolved = Guarded<Bool?>(nil)
        final class Tracked: @unchecked Sendable {
            let onDeinit: @Sendable () -> Void
            init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let registration = container.register(Tracked.self, lifetime: .singleton) { _ in
            alive.withLock { $0 += 1 }
            return Tracked {
                alive.withLock { $0 -= 1 }
                reResolved.withLock { $0 = (try? container.resolve(Tracked.self)) != nil }
            }
        }
        _ = try container.resolve(Tracked.self)
        #expect(alive.current == 1)
        container.remove(registration)
        #expect(reResolved.current == false)
        #expect(alive.current == 0)
    }
}

// MARK: - A resolve lives on one thread

extension ConcurrencyTests {

    /// `DispatchQueue.global().sync` runs its block on the calling thread, so a resolve inside
    /// it, through the factory's `Resolver` or through the container, joins the resolve in
    /// progress: it gets the `graph` instance that resolve already built.
    @Test func aResolveInsideDispatchQueueSyncJoinsTheResolveInProgress() throws {
        let container = Container()
        let sharedRuns = Counter()
        let ranOnTheCallingThread = Guarded<Bool?>(nil)
        container.register(Shared.self, counting: sharedRuns) { Shared() }
        container.register(Pair.self) { [weak container] r in
            guard let container else { throw CancellationError() }
            let first = try r.resolve(Shared.self)
            let caller = Thread.current
            let (throughResolver, throughContainer) = try DispatchQueue.global().sync {
                ranOnTheCallingThread.withLock { $0 = Thread.current === caller }
                return (try r.resolve(Shared.self), try container.resolve(Shared.self))
            }
            #expect(throughResolver === first, "the factory's Resolver inside sync joins the resolve")
            #expect(throughContainer === first, "container.resolve inside sync joins the resolve")
            return Pair(first: first, second: throughContainer)
        }
        let pair = try container.resolve(Pair.self)
        #expect(ranOnTheCallingThread.current == true, "the premise: sync ran the block on the factory's thread")
        #expect(pair.first === pair.second)
        #expect(sharedRuns.value == 1, "one graph instance for the whole resolve")
        // A second top-level resolve is a new graph.
        #expect(try container.resolve(Pair.self).first !== pair.first)
        #expect(sharedRuns.value == 2)
    }

    /// A factory that resolves its own key inside `DispatchQueue.global().sync` is a cycle of
    /// its own resolve: it throws `.circularDependency` with the path `A → A`. A singleton's
    /// factory would otherwise wait for its own build for ever (the watchdog catches that).
    @Test(arguments: [Lifetime.graph, .singleton])
    func aFactoryResolvingItsOwnKeyInsideDispatchQueueSyncIsACycle(lifetime: Lifetime) throws {
        let container = Container()
        let runs = Counter()
        container.register(Slow.self, lifetime: lifetime) { [weak container] _ in
            guard let container else { throw CancellationError() }
            // The first run only: a cycle not detected would recurse, not loop for ever.
            guard runs.increment() == 1 else { return Slow() }
            _ = try DispatchQueue.global().sync { try container.resolve(Slow.self) }
            return Slow()
        }
        guard let outcome = StartedThread({ try container.resolve(Slow.self) }).result(timeout: 10) else {
            Issue.record("deadlock: the resolve inside DispatchQueue.sync waited for its own factory")
            return
        }
        #expect(throws: ResolutionError.self) { _ = try outcome.get() }
        guard case .failure(let failure) = outcome, let error = failure as? ResolutionError else { return }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["Slow", "Slow"])
        #expect(runs.value == 1)
    }

    /// The `onResolved` block of an instance built inside `DispatchQueue.global().sync` is
    /// queued on the resolve in progress: it runs after the outermost factory has returned,
    /// not when the `sync` block ends.
    @Test func blocksOfAnInstanceBuiltInsideDispatchQueueSyncRunWhenTheOuterResolveEnds() throws {
        let container = Container()
        let events = EventLog()
        container.register(Cached.self, lifetime: .singleton) { _ in Cached() }
            .onResolved { _, _ in events.record("block of the instance built inside sync") }
        container.register(UsesCached.self) { [weak container] _ in
            guard let container else { throw CancellationError() }
            let cached = try DispatchQueue.global().sync { try container.resolve(Cached.self) }
            events.record("outer factory returns")
            return UsesCached(cached: cached)
        }
        let user = try container.resolve(UsesCached.self)
        #expect(events.events == ["outer factory returns", "block of the instance built inside sync"])
        #expect(try container.resolve(Cached.self) === user.cached)
    }

    /// The other side of the rule: the factory's own `Resolver`, used on another thread,
    /// starts a separate top-level resolve there, with an object graph of its own.
    @Test func theFactorysResolverUsedOnAnotherThreadStartsASeparateResolve() throws {
        let container = Container()
        let sharedRuns = Counter()
        container.register(Shared.self, counting: sharedRuns) { Shared() }
        container.register(Pair.self) { r in
            let first = try r.resolve(Shared.self)
            let elsewhere = StartedThread { try r.resolve(Shared.self) }
            guard let second = try elsewhere.value(timeout: 10) else { throw CancellationError() }
            return Pair(first: first, second: second)
        }
        let pair = try container.resolve(Pair.self)
        #expect(pair.first !== pair.second, "the other thread built a graph of its own")
        #expect(sharedRuns.value == 2)
    }
}

// MARK: - A group fails together

extension ConcurrencyTests {
    /// A service that keeps the instances its factory resolved.
    final class Staged: Sendable {
        let dependencies: [Staged]
        init(_ dependencies: [Staged] = []) { self.dependencies = dependencies }
    }

    /// How a resolve on one thread of a group ended: `success`, or the error's case, key and
    /// path, and the type of the error a factory or block threw.
    struct Outcome: Equatable {
        let kind: String
        let key: String
        let path: [String]
        let cause: String

        static let success = Outcome(kind: "success", key: "", path: [], cause: "")

        init(kind: String, key: String, path: [String], cause: String) {
            self.kind = kind
            self.key = key
            self.path = path
            self.cause = cause
        }

        init(_ error: any Error) {
            guard let error = error as? ResolutionError else {
                self.init(kind: "not a ResolutionError: \(error)", key: "", path: [], cause: "")
                return
            }
            let cause = error.kind.underlyingError.map { "\(type(of: $0))" } ?? ""
            self.init(kind: error.kind.caseName, key: error.key.description, path: error.pathDescriptions, cause: cause)
        }

        init(_ result: Result<some Any, any Error>) {
            switch result {
            case .success: self = .success
            case .failure(let error): self.init(error)
            }
        }
    }

    /// Two threads at both ends of a property cycle join one group (each block reads the
    /// instance the other thread built). When one block throws, both resolves throw that
    /// block's error, and neither instance is cached: a later resolve runs both factories again.
    @Test func twoThreadsAtBothEndsOfAPropertyCycleFailTogetherWhenABlockThrows() async throws {
        for _ in 0..<10 {
            let container = Container()
            let meeting = Rendezvous()
            let met = Guarded<[Bool]>([])
            let concurrentPhase = Guarded(true)
            let leftRuns = Counter()
            let rightRuns = Counter()
            // Every Left built, so that the end of the iteration can break the left <-> right
            // cycles their blocks made (including those of the failed resolves).
            let lefts = Guarded<[Left]>([])
            defer {
                for left in lefts.current {
                    left.right?.left = nil
                    left.right = nil
                }
            }
            container.register(Left.self, lifetime: .singleton) { _ in
                leftRuns.increment()
                if concurrentPhase.current {
                    meeting.arrive(first: true, timeout: 2, recordingIn: met)
                }
                let left = Left()
                lefts.withLock { $0.append(left) }
                return left
            }.onResolved { r, left in
                // Reading the other end first: the throw comes once the two resolves are one group.
                left.right = try r.resolve()
                if concurrentPhase.current { throw Boom() }
            }
            container.register(Right.self, lifetime: .singleton) { _ in
                rightRuns.increment()
                if concurrentPhase.current {
                    meeting.arrive(first: false, timeout: 2, recordingIn: met)
                }
                return Right()
            }.onResolved { r, right in right.left = try r.resolve() }

            let outcomes = await Self.errorsResolvingBothEnds(of: container).mapValues { Outcome($0) }
            #expect(met.current == [true, true], "both factories ran at once")
            let blockError = Outcome(kind: "factoryFailed", key: "Left", path: ["Left"], cause: "Boom")
            #expect(outcomes == [0: blockError, 1: blockError], "both threads throw the block's error")
            #expect(leftRuns.value == 1)
            #expect(rightRuns.value == 1)

            // Nothing either thread built was cached: both factories run again.
            concurrentPhase.withLock { $0 = false }
            let left = try container.resolve(Left.self)
            #expect(leftRuns.value == 2)
            #expect(rightRuns.value == 2)
            #expect(left.right?.left === left)
        }
    }

    /// Two resolves that wait for each other only because publication is delayed (thread 1:
    /// `top → a`, then `b`; thread 2: `b → a`) join one group, whose blocks run together. When a
    /// block of either member's instance throws, both resolves throw that one error (its path is
    /// the path in the resolve that built the instance), and neither `a` nor `b` is cached.
    @Test(arguments: ["a", "b"])
    func aThrowingBlockFailsBothResolvesOfAGroupFromDelayedPublication(throwingTag: String) throws {
        let container = Container(name: "root")
        let aBuilt = DispatchSemaphore(value: 0)
        let bStarted = DispatchSemaphore(value: 0)
        let failing = Guarded(true)
        let runs = Guarded<[String: Int]>([:])
        let blocks = Guarded<[String: Int]>([:])
        func block(_ tag: String) -> @Sendable (Resolver, Staged) throws -> Void {
            { _, _ in
                blocks.withLock { $0[tag, default: 0] += 1 }
                if tag == throwingTag, failing.current { throw Boom() }
            }
        }
        container.register(Staged.self, tag: "a", lifetime: .singleton) { _ in
            runs.withLock { $0["a", default: 0] += 1 }
            return Staged()
        }.onResolved(block("a"))
        container.register(Staged.self, tag: "b", lifetime: .singleton) { r in
            runs.withLock { $0["b", default: 0] += 1 }
            if failing.current {
                bStarted.signal()
                _ = aBuilt.wait(timeout: .now() + 10)
            }
            return Staged([try r.resolve(Staged.self, tag: "a")])
        }.onResolved(block("b"))
        container.register(Staged.self, tag: "top") { r in
            let a = try r.resolve(Staged.self, tag: "a")
            if failing.current {
                _ = bStarted.wait(timeout: .now() + 10)
                aBuilt.signal()
            }
            return Staged([a, try r.resolve(Staged.self, tag: "b")])
        }
        let threadTwo = StartedThread { try container.resolve(Staged.self, tag: "b") }
        _ = bStarted.wait(timeout: .now() + 10)
        bStarted.signal()  // put back the signal `top` waits for
        let threadOne = StartedThread { try container.resolve(Staged.self, tag: "top") }
        guard let top = threadOne.result(timeout: 10), let b = threadTwo.result(timeout: 10) else {
            Issue.record("deadlock: a resolve did not return within 10 s")
            return
        }
        let expected = Outcome(
            kind: "factoryFailed", key: "Staged[tag: \"\(throwingTag)\"]",
            path: throwingTag == "a" ? ["Staged[tag: \"top\"]", "Staged[tag: \"a\"]"] : ["Staged[tag: \"b\"]"],
            cause: "Boom")
        #expect(Outcome(top) == expected, "thread 1 (top -> a, then b)")
        #expect(Outcome(b) == expected, "thread 2 (b -> a)")
        #expect(runs.current == ["a": 1, "b": 1], "b's factory took the a thread 1 built")
        #expect(blocks.current["a"] == 1, "a's block ran once, for the group")

        // Nothing was cached: a later resolve builds both again, and a's block runs again.
        failing.withLock { $0 = false }
        let again = try container.resolve(Staged.self, tag: "top")
        #expect(runs.current == ["a": 2, "b": 2])
        #expect(blocks.current["a"] == 2)
        #expect(again.dependencies.last?.dependencies.first === again.dependencies.first)
        #expect(try container.resolve(Staged.self, tag: "a") === again.dependencies.first)
    }
}

// MARK: Exactly once through forwarded keys

extension ConcurrencyTests {
    /// First resolves through the own and the forwarded type at once build one instance.
    @Suite struct Forwarded: ProbeFixtures {
        /// Eight threads resolving the own and the forwarded type from a child build each cached lifetime once.
        @Test func threadsResolvingTheOwnAndTheForwardedTypeAtOnceBuildOnce() async throws {
            for lifetime in [Lifetime.singleton, .perContainer, .weakSingleton, .eagerSingleton] {
                let root = Container(name: "root")
                let child = root.makeChild(name: "child")
                let builds = Counter()
                root.register(Impl.self, lifetime: lifetime, counting: builds) { Impl() }.implements((any Service).self)
                let got = Guarded<[ObjectIdentifier]>([])
                await runOnThreads(8) { index in
                    let instance: AnyObject? =
                        index.isMultiple(of: 2)
                        ? try? child.resolve(Impl.self) : try? child.resolve((any Service).self)
                    if let instance { got.withLock { $0.append(ObjectIdentifier(instance)) } }
                }
                #expect(got.current.count == 8)
                if lifetime != .weakSingleton {
                    #expect(Set(got.current).count == 1, "\(lifetime)")
                    #expect(builds.value == 1, "\(lifetime)")
                }
            }
        }
    }
}
