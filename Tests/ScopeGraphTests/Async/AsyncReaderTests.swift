import Dispatch
import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Readers: a task's own `resolveAsync` (no runtime arguments) that finds another resolve
/// building the cached instance waits on the slot, and is woken once when that build ends,
/// whatever happens meanwhile (the registration replaced or removed, a cache reset, a
/// shutdown, cancellations, failures). Each test tries to make a reader hang, read a wrong
/// instance, run a build twice, get an error meant for another waiter, or leak.
@Suite struct AsyncReaderTests: ServiceFixtures {
    protocol Greeter: AnyObject, Sendable {}
    final class English: Greeter, Sendable {}
    final class Part: Sendable {}
    final class Whole: Sendable {
        let part: Part
        init(part: Part) { self.part = part }
    }

    typealias HeldBuild = GatedBuild<Slow>

    /// Starts `count` tasks that each call `container.resolveAsync(T.self, tag:)` (readers, if
    /// a build is under way); returns once all asked and had time to begin waiting.
    static func startReaders<T: Sendable>(
        _ count: Int, of type: T.Type, tag: ServiceTag? = nil, from container: Container, settle: Bool = true
    ) async -> [Task<Outcome<T>, Never>] {
        await startTasks(count, settle: settle) { _ in try await container.resolveAsync(T.self, tag: tag) }
    }

    /// Starts a request for `Slow` in `container` (the requester) and, once its build has
    /// `started` (held open by `gate`), `readers` tasks reading it; then runs `meanwhile()`,
    /// opens `gate`, and returns how the requester and the readers ended. Nil when a watchdog
    /// fired.
    static func requesterAndReaders(
        of container: Container, started: AsyncLatch, gate: AsyncLatch, readers count: Int = 10,
        meanwhile: () -> Void = {}
    ) async throws -> (requester: Outcome<Slow>, readers: [Outcome<Slow>])? {
        let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
        guard try await withAsyncWatchdog(seconds: 10, { await started.wait() }) != nil else { return nil }
        let readers = await startReaders(count, of: Slow.self, from: container)
        meanwhile()
        gate.open()
        return try await withAsyncWatchdog(seconds: 10) {
            (await requester.value, await awaitOutcomes(of: readers))
        }
    }

    /// Whether every outcome is a value, all the same instance as `expected` (or as each other).
    static func allIdentical<T: AnyObject>(_ outcomes: [Outcome<T>], to expected: T? = nil) -> Bool {
        let values = outcomes.compactMap(\.successValue)
        guard values.count == outcomes.count, let first = expected ?? values.first else { return false }
        return values.allSatisfy { $0 === first }
    }

    /// `withAsyncWatchdog`, plus a guard on a plain thread for a wedged cooperative pool: two
    /// threads deadlocked on the coordinator's lock can hold every thread of the pool (two
    /// cores), and then the async watchdog can never report. If `work` has not finished after
    /// twice its limit, the process stops with a message naming `what`, instead of hanging.
    /// The clock starts when the work does, as the async watchdog's: under ThreadSanitizer
    /// other suites' synchronous tests (the lookup model's, for one) can hold both threads of
    /// the pool for over a minute before the work starts, which is no hang of this work; a
    /// pool that never starts it is caught by the test run's own time limit.
    static func abortIfWedged<R: Sendable>(
        seconds: Double, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ work: @escaping @Sendable () async throws -> R
    ) async throws -> R? {
        let limit = 2 * seconds * watchdogScale
        return try await withAsyncWatchdog(seconds: seconds, sourceLocation: sourceLocation) {
            let finished = Guarded(false)
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
                guard !finished.withLock({ $0 }) else { return }
                let message =
                    "AsyncReaderTests: \(what) still running \(limit) s after it started: the cooperative pool "
                    + "is wedged (a deadlock between BuildCoordinator's lock and a task's cancellation)"
                FileHandle.standardError.write(Data((message + "\n").utf8))
                fatalError(message)
            }
            defer { finished.withLock { $0 = true } }
            return try await work()
        }
    }

    /// A container named "root" whose `Slow` is held open by a new `HeldBuild` (registered
    /// with `registerHeld`); open the build's gate when the test ends.
    static func heldRoot(lifetime: Lifetime = .singleton) -> (container: Container, held: HeldBuild) {
        let container = Container(name: "root")
        let held = HeldBuild()
        registerHeld(held, in: container, lifetime: lifetime)
        return (container, held)
    }

    /// Registers `Slow` with an async factory whose first run waits for `held.gate`.
    @discardableResult
    static func registerHeld(
        _ held: HeldBuild, in container: Container, tag: ServiceTag? = nil, lifetime: Lifetime = .singleton
    ) -> Registration<Slow> {
        container.register(Slow.self, tag: tag, lifetime: lifetime) { _ in
            let run = held.runs.increment()
            if run == 1 {
                held.started.open()
                await held.gate.wait()
            }
            return Slow(run: run)
        }
    }

    // MARK: Registrations changing while readers wait

    /// Readers waiting for the build of a singleton whose registration is replaced meanwhile
    /// are woken when that build ends, look again, and all get one instance of the new
    /// registration, built once.
    @Test func readersWaitingWhileTheRegistrationIsReplacedGetOneInstanceOfTheNewOne() async throws {
        let (container, held) = Self.heldRoot()
        defer { held.gate.open() }
        let newRuns = Counter()
        let outcomes = try await Self.requesterAndReaders(of: container, started: held.started, gate: held.gate) {
            container.register(Slow.self, lifetime: .singleton) { _ in
                Slow(run: 100 + newRuns.increment())
            }
        }
        guard let (requesterOutcome, readerOutcomes) = outcomes else { return }
        #expect(outcomeName(requesterOutcome) == "value")
        #expect(Self.allIdentical(readerOutcomes), "\(readerOutcomes.map(outcomeName))")
        #expect(readerOutcomes.compactMap(\.successValue).allSatisfy { $0.run == 101 })
        #expect(newRuns.value == 1)
        #expect(held.runs.value == 1)
    }

    /// Readers waiting for the build of a singleton whose registration is removed meanwhile
    /// are woken when that build ends and get `.notRegistered`; none hangs.
    @Test func readersWaitingWhileTheRegistrationIsRemovedGetNotRegistered() async throws {
        let container = Container(name: "root")
        let held = HeldBuild()
        let registration = Self.registerHeld(held, in: container)
        defer { held.gate.open() }
        let outcomes = try await Self.requesterAndReaders(of: container, started: held.started, gate: held.gate) {
            container.remove(registration)
        }
        guard let (requesterOutcome, readerOutcomes) = outcomes else { return }
        #expect(["value", "notRegistered"].contains(outcomeName(requesterOutcome)))
        #expect(readerOutcomes.map(outcomeName) == Array(repeating: "notRegistered", count: 10))
        #expect(held.runs.value == 1)
    }

    /// Readers waiting for a build while the container's cached instances are reset get an
    /// instance: for a singleton, the one being built (the reset came before it was
    /// published); for a `perContainer` instance, one instance that the container then holds.
    @Test(arguments: [Lifetime.singleton, .perContainer])
    func readersWaitingDuringACacheResetGetAnInstanceTheContainerThenHolds(lifetime: Lifetime) async throws {
        let (container, held) = Self.heldRoot(lifetime: lifetime)
        defer { held.gate.open() }
        let outcomes = try await Self.requesterAndReaders(of: container, started: held.started, gate: held.gate) {
            container.resetCachedInstances()
        }
        guard let (requesterOutcome, readerOutcomes) = outcomes else { return }
        #expect(outcomeName(requesterOutcome) == "value")
        #expect(Self.allIdentical(readerOutcomes), "\(readerOutcomes.map(outcomeName))")
        let current = try await container.resolveAsync(Slow.self)
        #expect(readerOutcomes.first?.successValue === current)
        if lifetime == .singleton {
            #expect(requesterOutcome.successValue === current)
            #expect(held.runs.value == 1)
        } else {
            #expect(held.runs.value <= 2)
        }
    }

    /// Readers waiting while the container is shut down get `.containerShutDown` (the build
    /// raced with the shutdown and is not published), as does the requester; a reader that
    /// comes after the shutdown began gets it at once.
    @Test func readersWaitingWhileTheContainerShutsDownGetContainerShutDown() async throws {
        let root = Container(name: "root")
        let container = root.makeChild(name: "scope")
        let held = HeldBuild()
        Self.registerHeld(held, in: container)
        defer { held.gate.open() }
        let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
        guard try await withAsyncWatchdog(seconds: 10, { await held.started.wait() }) != nil else { return }
        let readers = await Self.startReaders(10, of: Slow.self, from: container)
        let shutdown = Task { await Result { try await container.shutdown() } }
        await waitUntil { container.isShutDown }
        let late = await Self.startReaders(3, of: Slow.self, from: container, settle: false)
        held.gate.open()
        let outcomes = try await withAsyncWatchdog(seconds: 10) {
            (
                await requester.value, await awaitOutcomes(of: readers), await awaitOutcomes(of: late),
                await shutdown.value
            )
        }
        guard let (requesterOutcome, readerOutcomes, lateOutcomes, shutdownOutcome) = outcomes else { return }
        #expect(outcomeName(requesterOutcome) == "containerShutDown")
        #expect(readerOutcomes.map(outcomeName) == Array(repeating: "containerShutDown", count: 10))
        #expect(lateOutcomes.map(outcomeName) == Array(repeating: "containerShutDown", count: 3))
        #expect(outcomeName(shutdownOutcome) == "value")
        #expect(held.runs.value == 1)
    }

    // MARK: Lifetimes

    /// After a `weakSingleton`'s instance died, a new build starts; tasks that ask meanwhile
    /// wait for it and get its instance (the requester keeps it), built once more.
    @Test func weakSingletonReadersGetTheNewBuildsInstanceAfterTheOldOneDied() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        let started = AsyncLatch()
        let gate = AsyncLatch()
        defer { gate.open() }
        container.register(Slow.self, lifetime: .weakSingleton) { _ in
            let run = runs.increment()
            if run == 2 {
                started.open()
                await gate.wait()
            }
            return Slow(run: run)
        }
        var first: Slow? = try await container.resolveAsync(Slow.self)
        let watched = WeakProbe(first)
        first = nil
        #expect(watched.isFreed)
        let outcomes = try await Self.requesterAndReaders(of: container, started: started, gate: gate)
        guard let (requesterOutcome, readerOutcomes) = outcomes else { return }
        let kept = try requesterOutcome.get()
        #expect(kept.run == 2)
        #expect(Self.allIdentical(readerOutcomes, to: kept), "\(readerOutcomes.map(outcomeName))")
        #expect(runs.value == 2)
    }

    /// A `weakSingleton` whose requester drops the instance at once: readers woken by its
    /// publication may find it dead and build again, but every one gets an instance and none
    /// hangs, over many rounds.
    @Test func weakSingletonReadersWhoseInstanceDiesAtPublicationEachGetAnInstance() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        let gates = Guarded<[Int: AsyncLatch]>([:])
        container.register(Slow.self, lifetime: .weakSingleton) { _ in
            let run = runs.increment()
            let gate = gates.withLock { $0[run] }
            await gate?.wait()
            return Slow(run: run)
        }
        let rounds = 40
        let result = try await withAsyncWatchdog(seconds: 20) { () -> [String] in
            var failures: [String] = []
            for _ in 0..<rounds {
                let gate = AsyncLatch()
                let before = runs.value
                gates.withLock { $0 = [before + 1: gate] }
                let requester = Task { _ = try await container.resolveAsync(Slow.self) }
                await waitUntil { runs.value == before + 1 }
                let readers = await Self.startReaders(4, of: Slow.self, from: container, settle: false)
                try? await Task.sleep(for: .milliseconds(2))
                gate.open()
                _ = await requester.result
                for outcome in await awaitOutcomes(of: readers) where outcomeName(outcome) != "value" {
                    failures.append(outcomeName(outcome))
                }
            }
            return failures
        }
        guard let result else { return }
        #expect(result.isEmpty, "\(result)")
    }

    /// Each of many children building its `perContainer` instance has readers: every reader
    /// gets its own child's instance (the one its requester got), one build per child.
    @Test func perContainerReadersInManyChildrenEachGetTheirChildsInstance() async throws {
        let root = Container(name: "root")
        let gate = AsyncLatch()
        defer { gate.open() }
        let runs = Counter()
        root.register(Slow.self, lifetime: .perContainer) { _ in
            let run = runs.increment()
            await gate.wait()
            return Slow(run: run)
        }
        let children = (0..<20).map { root.makeChild(name: "child \($0)") }
        let requesters = children.map { child in
            Task { await Result { try await child.resolveAsync(Slow.self) } }
        }
        await waitUntil { runs.value == children.count }
        var waiting: [[Task<Outcome<Slow>, Never>]] = []
        for child in children {
            waiting.append(await Self.startReaders(5, of: Slow.self, from: child, settle: false))
        }
        let readers = waiting
        await letTasksSettle()
        gate.open()
        let outcomes = try await withAsyncWatchdog(seconds: 15) { () -> [(Outcome<Slow>, [Outcome<Slow>])] in
            var all: [(Outcome<Slow>, [Outcome<Slow>])] = []
            for (requester, group) in zip(requesters, readers) {
                all.append((await requester.value, await awaitOutcomes(of: group)))
            }
            return all
        }
        guard let outcomes else { return }
        for (index, (requesterOutcome, readerOutcomes)) in outcomes.enumerated() {
            let instance = try requesterOutcome.get()
            #expect(Self.allIdentical(readerOutcomes, to: instance), "child \(index)")
            #expect(try children[index].resolve(Slow.self) === instance)
        }
        #expect(Set(outcomes.compactMap { $0.0.successValue.map(ObjectIdentifier.init) }).count == children.count)
        #expect(runs.value == children.count)
    }

    /// An async eager singleton that `bootstrapAsync()` is building has readers: they get
    /// the instance bootstrap built, from one factory run.
    @Test func eagerSingletonReadersWaitForTheBootstrapsBuild() async throws {
        let container = Container(name: "root")
        let held = HeldBuild()
        Self.registerHeld(held, in: container, lifetime: .eagerSingleton)
        defer { held.gate.open() }
        let bootstrap = Task { await Result { try await container.bootstrapAsync() } }
        guard try await withAsyncWatchdog(seconds: 10, { await held.started.wait() }) != nil else { return }
        let readers = await Self.startReaders(20, of: Slow.self, from: container)
        held.gate.open()
        let outcomes = try await withAsyncWatchdog(seconds: 10) {
            (await bootstrap.value, await awaitOutcomes(of: readers))
        }
        guard let (bootstrapOutcome, readerOutcomes) = outcomes else { return }
        #expect(outcomeName(bootstrapOutcome) == "value")
        #expect(Self.allIdentical(readerOutcomes, to: try container.resolve(Slow.self)))
        #expect(held.runs.value == 1)
    }

    // MARK: Keys

    /// Readers of a tagged and an untagged registration of one type, both being built, each
    /// wait for their own build and get their own instance.
    @Test func readersOfTaggedAndUntaggedRegistrationsOfOneTypeGetTheirOwnInstances() async throws {
        let container = Container(name: "root")
        let plain = HeldBuild()
        let tagged = HeldBuild()
        let tag = ServiceTag("tagged")
        Self.registerHeld(plain, in: container)
        Self.registerHeld(tagged, in: container, tag: tag)
        defer {
            plain.gate.open()
            tagged.gate.open()
        }
        let plainRequester = Task { await Result { try await container.resolveAsync(Slow.self) } }
        let taggedRequester = Task { await Result { try await container.resolveAsync(Slow.self, tag: tag) } }
        let bothStarted = try await withAsyncWatchdog(seconds: 10) { () -> Bool in
            await plain.started.wait()
            await tagged.started.wait()
            return true
        }
        guard bothStarted == true else { return }
        let plainReaders = await Self.startReaders(8, of: Slow.self, from: container)
        let taggedReaders = await Self.startReaders(8, of: Slow.self, tag: tag, from: container)
        tagged.gate.open()
        let taggedOutcomes = try await withAsyncWatchdog(seconds: 10) {
            (await taggedRequester.value, await awaitOutcomes(of: taggedReaders))
        }
        plain.gate.open()
        let plainOutcomes = try await withAsyncWatchdog(seconds: 10) {
            (await plainRequester.value, await awaitOutcomes(of: plainReaders))
        }
        guard let taggedOutcomes, let plainOutcomes else { return }
        let taggedInstance = try taggedOutcomes.0.get()
        let plainInstance = try plainOutcomes.0.get()
        #expect(taggedInstance !== plainInstance)
        #expect(Self.allIdentical(taggedOutcomes.1, to: taggedInstance))
        #expect(Self.allIdentical(plainOutcomes.1, to: plainInstance))
        #expect(plain.runs.value == 1)
        #expect(tagged.runs.value == 1)
    }

    /// Readers asking for a forwarded protocol (`implements`) while the concrete type is
    /// being built, and readers asking for the concrete type while a request for the protocol
    /// builds it, get that one instance.
    @Test(arguments: [false, true])
    func readersOfAForwardedTypeGetTheInstanceBeingBuilt(requesterAsksForTheProtocol: Bool) async throws {
        let container = Container(name: "root")
        let held = GatedBuild<English>()
        defer { held.gate.open() }
        container.registerHeldOpen(English.self, lifetime: .singleton, by: held) {
            English()
        }.implements((any Greeter).self)
        let requester = Task { () -> Outcome<English> in
            if requesterAsksForTheProtocol {
                return await Result { try await container.resolveAsync((any Greeter).self) as! English }
            }
            return await Result { try await container.resolveAsync(English.self) }
        }
        guard try await withAsyncWatchdog(seconds: 10, { await held.started.wait() }) != nil else { return }
        let protocolReaders = await Self.startReaders(6, of: (any Greeter).self, from: container, settle: false)
        let concreteReaders = await Self.startReaders(6, of: English.self, from: container)
        held.gate.open()
        let outcomes = try await withAsyncWatchdog(seconds: 10) {
            (
                await requester.value, await awaitOutcomes(of: protocolReaders),
                await awaitOutcomes(of: concreteReaders)
            )
        }
        guard let (requesterOutcome, protocolOutcomes, concreteOutcomes) = outcomes else { return }
        let instance = try requesterOutcome.get()
        #expect(Self.allIdentical(concreteOutcomes, to: instance))
        #expect(protocolOutcomes.allSatisfy { $0.successValue.map { $0 === instance } == true })
        #expect(held.runs.value == 1)
    }

    // MARK: Scopes and traces

    /// Inside a cache scope (`ResolutionScope`, the package type ScopeGraphTesting's override
    /// scopes are made of), readers wait for the scope's own
    /// build and get the scope's instance, while readers outside wait for the container's
    /// build: neither reads the other's instance, and each slot is built once.
    @Test func readersInsideACacheScopeWaitForTheScopesBuildNotTheContainers() async throws {
        let container = Container(name: "root")
        let runs = Counter()
        let started = [AsyncLatch(), AsyncLatch()]
        let gates = [AsyncLatch(), AsyncLatch()]
        defer { gates.forEach { $0.open() } }
        container.register(Slow.self, lifetime: .singleton) { _ in
            let run = runs.increment()
            if run <= 2 {
                started[run - 1].open()
                await gates[run - 1].wait()
            }
            return Slow(run: run)
        }
        let outside = Task { await Result { try await container.resolveAsync(Slow.self) } }
        guard try await withAsyncWatchdog(seconds: 10, { await started[0].wait() }) != nil else { return }
        let outsideReaders = await Self.startReaders(5, of: Slow.self, from: container, settle: false)
        let scope = ResolutionScope(parent: ResolutionScope.current)
        let inside = try await scope.runAsync { () -> (Outcome<Slow>, [Outcome<Slow>])? in
            try await Self.requesterAndReaders(of: container, started: started[1], gate: gates[1], readers: 5)
        }
        gates[0].open()
        let outsideOutcomes = try await withAsyncWatchdog(seconds: 10) {
            (await outside.value, await awaitOutcomes(of: outsideReaders))
        }
        guard let inside, let outsideOutcomes else { return }
        let scoped = try inside.0.get()
        let shared = try outsideOutcomes.0.get()
        #expect(scoped.run == 2)
        #expect(shared.run == 1)
        #expect(Self.allIdentical(inside.1, to: scoped))
        #expect(Self.allIdentical(outsideOutcomes.1, to: shared))
        #expect(try container.resolve(Slow.self) === shared)
        #expect(runs.value == 2)
    }

    /// With a trace active, tasks asking for an instance being built take the full async path
    /// (not the reader's): they still get the one instance, built once, and are traced.
    @Test func readersUnderATraceTakeTheFullPathAndGetTheOneInstance() async throws {
        let (container, held) = Self.heldRoot()
        defer { held.gate.open() }
        let events = Counter()
        let sink: @Sendable (ResolutionTrace.Event) -> Void = { _ in events.increment() }
        let outcomes = try await Container.withTrace(sink) { () -> (Outcome<Slow>, [Outcome<Slow>])? in
            try await Self.requesterAndReaders(of: container, started: held.started, gate: held.gate)
        }
        guard let (requesterOutcome, readerOutcomes) = outcomes else { return }
        #expect(Self.allIdentical(readerOutcomes, to: try requesterOutcome.get()))
        #expect(held.runs.value == 1)
        #expect(events.value >= 11)
    }

    // MARK: Threads

    /// Async readers of a singleton a thread is building synchronously get the thread's
    /// instance when it publishes, from one factory run.
    @Test func asyncReadersOfAThreadsSynchronousBuildGetItsInstance() async throws {
        guard let race = try await Self.readersOfAThreadsHeldBuild(thenFailing: nil) else { return }
        #expect(Self.allIdentical(race.readers, to: try race.thread.get()))
        #expect(race.runs.value == 1)
    }

    /// Async readers of a thread's synchronous build that fails are woken, find nothing
    /// built and nobody building, and share one new build among themselves.
    @Test func asyncReadersOfAThreadsFailedBuildShareOneRebuild() async throws {
        guard let race = try await Self.readersOfAThreadsHeldBuild(thenFailing: Boom("thread")) else { return }
        #expect(race.thread.resolutionError?.kind.underlyingError as? Boom == Boom("thread"))
        #expect(Self.allIdentical(race.readers, to: try race.container.resolve(Slow.self)))
        #expect(race.runs.value == 2)
    }

    /// Resolves `Slow` on a thread, whose first build is held open (and then throws `error`,
    /// when there is one); once it runs, starts 20 tasks reading `Slow`, then lets the build
    /// end. Returns the container, the factory's runs, and how the thread and the readers
    /// ended; nil when the watchdog fired.
    static func readersOfAThreadsHeldBuild(thenFailing error: Boom?) async throws -> (
        container: Container, runs: Counter, thread: Outcome<Slow>, readers: [Outcome<Slow>]
    )? {
        let container = Container(name: "root")
        let runs = Counter()
        let building = Counter()
        let release = DispatchSemaphore(value: 0)
        if let error {
            container.registerFirstBuildHeldThenFailing(
                Slow.self, runs: runs, started: building, gate: release, atMost: 10, throwing: error, Slow.init(run:))
        } else {
            container.registerFirstBuildHeld(
                Slow.self, runs: runs, started: building, gate: release, atMost: 10, Slow.init(run:))
        }
        defer { release.signal() }
        let thread = Task { await runOnNewThread { Result { try container.resolve(Slow.self) } } }
        await waitUntil { building.value == 1 }
        let readers = await startReaders(20, of: Slow.self, from: container)
        release.signal()
        let outcomes = try await withAsyncWatchdog(seconds: 10) {
            (await thread.value, await awaitOutcomes(of: readers))
        }
        guard let (threadOutcome, readerOutcomes) = outcomes else { return nil }
        return (container, runs, threadOutcome, readerOutcomes)
    }

    // MARK: Cancellation and failure

    /// The task whose request started a build is cancelled while readers wait: it gets
    /// `CancellationError`, the build goes on, and the readers get its instance.
    @Test func readersOfABuildWhoseRequesterWasCancelledGetItsInstance() async throws {
        let (container, held) = Self.heldRoot()
        defer { held.gate.open() }
        let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
        guard try await withAsyncWatchdog(seconds: 10, { await held.started.wait() }) != nil else { return }
        let readers = await Self.startReaders(10, of: Slow.self, from: container)
        requester.cancel()
        let requesterOutcome = try await withAsyncWatchdog(seconds: 10) { await requester.value }
        held.gate.open()
        let readerOutcomes = try await withAsyncWatchdog(seconds: 10) { await awaitOutcomes(of: readers) }
        guard let requesterOutcome, let readerOutcomes else { return }
        #expect(outcomeName(requesterOutcome) == "CancellationError")
        #expect(Self.allIdentical(readerOutcomes, to: try container.resolve(Slow.self)))
        #expect(held.runs.value == 1)
    }

    /// How a waiter asks: as a task's own `resolveAsync` (a reader of the slot), or from
    /// inside an async factory (a waiter of the coordinator, `acquireAsync`).
    enum Asker: String, CaseIterable, Sendable {
        case task
        case factory
    }

    final class Asking: Sendable {
        let slow: Slow
        init(_ slow: Slow) { self.slow = slow }
    }

    /// **Deadlock probe.** Over twenty rounds, half of a hundred waiters are cancelled while
    /// the build they wait for is published: a cancelled waiter gets `CancellationError` or
    /// the instance, every other waiter the instance; one build per round, and nothing of the
    /// containers is kept alive afterwards. A cancellation handler that takes the coordinator's
    /// lock (while the runtime holds the task's status lock) racing with a wake that resumes
    /// that task under the coordinator's lock deadlocks the two threads; the cooperative pool
    /// may then be wedged for good, so `abortIfWedged` ends the process with a message instead
    /// of hanging it.
    @Test(arguments: Asker.allCases)
    func waitersCancelledWhileTheBuildIsPublishedLeaveNothingBehind(asker: Asker) async throws {
        let rounds = 20
        let watched = Guarded<[WeakProbe<Container>]>([])
        try await Self.abortIfWedged(seconds: 20, "\(asker) waiters cancelled during a wake") {
            try await runRounds(rounds) { round in
                var problems: [String] = []
                let container = Container(name: "round \(round)")
                watched.withLock { $0.append(WeakProbe(container)) }
                let held = HeldBuild()
                Self.registerHeld(held, in: container)
                container.register(Asking.self) { r in Asking(try await r.resolveAsync(Slow.self)) }
                let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
                await held.started.wait()
                let readers: [Task<Outcome<Slow>, Never>]
                switch asker {
                case .task:
                    readers = await Self.startReaders(100, of: Slow.self, from: container, settle: false)
                case .factory:
                    let asked = Counter()
                    readers = (0..<100).map { _ in
                        Task {
                            asked.increment()
                            return await Result { try await container.resolveAsync(Asking.self).slow }
                        }
                    }
                    await waitUntil { asked.value == 100 }
                }
                try? await Task.sleep(for: .milliseconds(5))
                let cancelling = Task {
                    for (index, reader) in readers.enumerated() where index % 2 == 0 { reader.cancel() }
                }
                held.gate.open()
                await cancelling.value
                let instance = try await requester.value.get()
                for (index, outcome) in await awaitOutcomes(of: readers).enumerated() {
                    let name = outcomeName(outcome)
                    if index % 2 == 0, name == "CancellationError" { continue }
                    if name != "value" || outcome.successValue !== instance {
                        problems.append("waiter \(index): \(name)")
                    }
                }
                if held.runs.value != 1 { problems.append("\(held.runs.value) runs") }
                return problems
            }.expectNoFailures()
        }
        let freed = await waitUntil(atMost: 5) { watched.withLock { $0.allSatisfy(\.isFreed) } }
        #expect(freed, "a container was kept alive")
    }

    /// Over many rounds, a build that fails or succeeds at random, with readers and the
    /// requester cancelled at random: a reader that was not cancelled gets the instance the
    /// container then holds or that build's own error (never another round's, never a
    /// cancellation); a cancelled one may also get `CancellationError`; nobody hangs.
    @Test func randomlyCancelledReadersOfRandomlyFailingBuildsGetOnlyTheirBuildsOutcome() async throws {
        let rounds = 120
        try await Self.abortIfWedged(seconds: 20, "randomly cancelled readers") {
            var generator = Reliability.SplitMix64(seed: 0x5EED_0042)
            await runRounds(rounds) { round in
                var problems: [String] = []
                let fails = generator.chance(40)
                let container = Container(name: "round \(round)")
                let held = HeldBuild()
                container.register(Slow.self, lifetime: .singleton) { _ in
                    let run = held.runs.increment()
                    guard run == 1 else { return Slow(run: run) }
                    held.started.open()
                    await held.gate.wait()
                    if fails { throw Boom("round \(round)") }
                    return Slow(run: run)
                }
                let requester = Task { await Result { try await container.resolveAsync(Slow.self) } }
                await held.started.wait()
                let readers = await Self.startReaders(6, of: Slow.self, from: container, settle: false)
                for _ in 0..<generator.below(4) { await Task.yield() }
                var cancelled: Set<Int> = []
                for index in readers.indices where generator.chance(30) { cancelled.insert(index) }
                let cancelRequester = generator.chance(30)
                let cancelBefore = generator.chance(50)
                let cancel = {
                    for index in cancelled { readers[index].cancel() }
                    if cancelRequester { requester.cancel() }
                }
                if cancelBefore { cancel() }
                held.gate.open()
                if !cancelBefore { cancel() }
                let requesterOutcome = await requester.value
                let outcomes = await awaitOutcomes(of: readers)
                let cached = try? container.resolve(Slow.self)
                func check(_ outcome: Outcome<Slow>, cancelled: Bool, who: String) {
                    switch outcome {
                    case .success(let value):
                        if value !== cached { problems.append("\(who) got a stray instance") }
                    case .failure(let error):
                        if error is CancellationError, cancelled { return }
                        let boom = (error as? ResolutionError)?.kind.underlyingError as? Boom
                        if !(fails && boom == Boom("round \(round)")) {
                            problems.append("(fails: \(fails)): \(who) got \(errorName(error))")
                        }
                    }
                }
                check(requesterOutcome, cancelled: cancelRequester, who: "requester")
                for (index, outcome) in outcomes.enumerated() {
                    check(outcome, cancelled: cancelled.contains(index), who: "reader \(index)")
                }
                if !fails, held.runs.value != 1 {
                    let who = "requester cancelled: \(cancelRequester), before the build ended: \(cancelBefore)"
                    problems.append("\(held.runs.value) runs (\(who))")
                }
                return problems
            }.expectNoFailures()
        }
    }

    /// Registrations replaced, removed or reset at random while readers wait, over many
    /// rounds: every reader ends with an instance or `.notRegistered`, and none hangs.
    @Test func readersRacingWithRandomRegistrationChangesNeverHang() async throws {
        let rounds = 100
        try await withAsyncWatchdog(seconds: 20) {
            var generator = Reliability.SplitMix64(seed: 0xC0FF_EE01)
            await runRounds(rounds) { round in
                var problems: [String] = []
                let root = Container(name: "root")
                let child = root.makeChild(name: "child")
                let held = HeldBuild()
                let lifetime: Lifetime = [.singleton, .weakSingleton, .perContainer][generator.below(3)]
                let registration = Self.registerHeld(held, in: root, lifetime: lifetime)
                let requester = Task { () -> Outcome<Slow> in await Result { try await child.resolveAsync(Slow.self) } }
                await held.started.wait()
                let readers = await Self.startReaders(5, of: Slow.self, from: child, settle: false)
                let change = generator.below(5)
                switch change {
                case 0: root.remove(registration)
                case 1: root.register(Slow.self, lifetime: lifetime) { _ in Slow(run: 7) }
                case 2: root.resetCachedInstances()
                case 3: child.resetCachedInstances()
                default: registration.resetCachedInstances()
                }
                if generator.chance(50) { await Task.yield() }
                held.gate.open()
                var all = [await requester.value]
                all += await awaitOutcomes(of: readers)
                for outcome in all where !["value", "notRegistered"].contains(outcomeName(outcome)) {
                    problems.append("change \(change) \(lifetime): \(outcomeName(outcome))")
                }
                if change != 0, all.contains(where: { outcomeName($0) != "value" }) {
                    problems.append("change \(change): not registered while registered")
                }
                withExtendedLifetime(all) {}
                return problems
            }.expectNoFailures()
        }
    }

    // MARK: Errors of other resolves

    /// A synchronous singleton built inside an async resolve whose outer factory then fails
    /// is discarded with that resolve when it is incomplete (here: it has an `onResolved`
    /// block, which runs only when the resolve ends). A task that only waited for that singleton did not ask
    /// for the failed factory: like the waiter of a discarded handed-off build
    /// (`AsyncExactlyOnceTests.aWaiterForABuildDiscardedByItsResolvesFailureBuildsItAgain`),
    /// it builds the singleton again and gets an instance, not the outer factory's error.
    @Test func aReaderOfASynchronousSingletonDiscardedByItsResolvesFailureBuildsItAgain() async throws {
        let partRuns = Counter()
        let gate = AsyncLatch()
        defer { gate.open() }
        let ended = try await Self.readersOfAPartWhileAWholeFails(
            partRuns: partRuns, partIsIncomplete: true,
            wholeAfterItsPart: {
                await gate.wait()
                if partRuns.value > 0 { throw Boom("whole") }
            },
            failTheWhole: { _ in gate.open() })
        guard let (wholeOutcome, readerOutcomes) = ended else { return }
        #expect(wholeOutcome.resolutionError?.kind.underlyingError as? Boom == Boom("whole"))
        #expect(
            readerOutcomes.map(outcomeName) == ["value", "value", "value"],
            "the readers got \(readerOutcomes.map { $0.failureDescription })")
        #expect(partRuns.value == 2)
    }

    /// The same, when the outer resolve fails because its task was cancelled: a task that
    /// only waited for the synchronous singleton was not cancelled and must not get
    /// `CancellationError` (the design: a cancelled caller stops waiting, the others go on).
    @Test func aReaderOfASingletonDiscardedByACancelledResolveIsNotCancelled() async throws {
        let ended = try await Self.readersOfAPartWhileAWholeFails(
            partRuns: Counter(), partIsIncomplete: false,
            wholeAfterItsPart: { try await Task.sleep(for: .seconds(30)) },
            failTheWhole: { whole in whole.cancel() })
        guard let (wholeOutcome, readerOutcomes) = ended else { return }
        #expect(outcomeName(wholeOutcome) == "CancellationError")
        #expect(
            readerOutcomes.map(outcomeName) == ["value", "value", "value"],
            "the readers, never cancelled, got \(readerOutcomes.map(outcomeName))")
    }

    /// Resolves `Whole` in a task, whose async factory resolves the singleton `Part` (its runs
    /// counted in `partRuns`; with an `onResolved` block when `partIsIncomplete`), then runs
    /// `wholeAfterItsPart`. Once `Part` is built, starts three tasks reading it, and calls
    /// `failTheWhole` with the task. Returns how the resolve of `Whole` and the readers ended;
    /// nil when a watchdog fired.
    static func readersOfAPartWhileAWholeFails(
        partRuns: Counter, partIsIncomplete: Bool,
        wholeAfterItsPart: @escaping @Sendable () async throws -> Void,
        failTheWhole: (Task<Outcome<Whole>, Never>) -> Void
    ) async throws -> (whole: Outcome<Whole>, readers: [Outcome<Part>])? {
        let container = Container(name: "root")
        let partBuilt = AsyncLatch()
        let part = container.register(Part.self, lifetime: .singleton, counting: partRuns) { Part() }
        if partIsIncomplete { part.onResolved { _, _ in } }
        container.register(Whole.self) { r in
            let part = try await r.resolveAsync(Part.self)
            partBuilt.open()
            try await wholeAfterItsPart()
            return Whole(part: part)
        }
        let whole = Task { await Result { try await container.resolveAsync(Whole.self) } }
        guard try await withAsyncWatchdog(seconds: 10, { await partBuilt.wait() }) != nil else { return nil }
        let readers = await startReaders(3, of: Part.self, from: container)
        failTheWhole(whole)
        return try await withAsyncWatchdog(seconds: 10) {
            (await whole.value, await awaitOutcomes(of: readers))
        }
    }
}

extension Result where Failure == any Error {
    /// A short description of how it ended, for messages.
    fileprivate var failureDescription: String {
        switch self {
        case .success: "value"
        case .failure(let error): "\(errorName(error)) (\(error))"
        }
    }
}
