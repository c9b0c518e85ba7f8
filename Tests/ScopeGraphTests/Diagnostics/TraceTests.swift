import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

private final class TLogger: Sendable {}
private final class TDatabase: Sendable {
    let logger: TLogger
    init(logger: TLogger) { self.logger = logger }
}
private final class TRepository: Sendable {
    init(database: TDatabase, logger: TLogger) {}
}
private final class TScreen: Sendable {
    init(repository: TRepository) {}
}
private protocol TGreeter: Sendable {}
private final class TGreeterImpl: TGreeter {}

/// Collects events from any thread.
private final class TraceEventLog: @unchecked Sendable {
    // @unchecked: `events` is only touched with `lock` held.
    private let lock = NSLock()
    private var events: [ResolutionTrace.Event] = []
    func append(_ event: ResolutionTrace.Event) { lock.withLock { events.append(event) } }
    var all: [ResolutionTrace.Event] { lock.withLock { events } }
}

@Suite struct TraceTests {
    /// app (Logger, Database singletons; Repository graph) and its child feature (Screen graph).
    private func appTree() -> (app: Container, feature: Container) {
        let app = Container(name: "app")
        app.register(TLogger.self, lifetime: .singleton) { _ in TLogger() }
        app.register(TDatabase.self, lifetime: .singleton) { r in TDatabase(logger: try r.resolve()) }
        app.register(TRepository.self) { r in TRepository(database: try r.resolve(), logger: try r.resolve()) }
        let feature = app.makeChild(name: "feature")
        feature.register(TScreen.self) { r in TScreen(repository: try r.resolve()) }
        return (app, feature)
    }

    /// One line per event without the duration, which varies.
    private func summary(_ events: [ResolutionTrace.Event]) -> [String] {
        events.map { event in
            "\(event.depth) \(event.key) by \(event.dependent?.description ?? "-") in '\(event.container)' from '\(event.start)' \(event.lifetime) \(event.isNew ? "new" : "cached")"
        }
    }

    @Test func reportsEveryKeyResolvedAsItFinishesDependenciesFirst() throws {
        let tree = appTree()
        let (_, first) = try Container.trace { try tree.feature.resolve(TScreen.self) }
        #expect(
            summary(first.events) == [
                "3 TLogger by TDatabase in 'app' from 'app' singleton new",
                "2 TDatabase by TRepository in 'app' from 'feature' singleton new",
                "2 TLogger by TRepository in 'app' from 'feature' singleton cached",
                "1 TRepository by TScreen in 'app' from 'feature' graph new",
                "0 TScreen by - in 'feature' from 'feature' graph new",
            ])
        let (_, second) = try Container.trace { try tree.feature.resolve(TScreen.self) }
        #expect(
            summary(second.events) == [
                "2 TDatabase by TRepository in 'app' from 'feature' singleton cached",
                "2 TLogger by TRepository in 'app' from 'feature' singleton cached",
                "1 TRepository by TScreen in 'app' from 'feature' graph new",
                "0 TScreen by - in 'feature' from 'feature' graph new",
            ])
    }

    @Test func descriptionIsATreeInRequestOrder() throws {
        let tree = appTree()
        let (_, trace) = try Container.trace { try tree.feature.resolve(TScreen.self) }
        // Durations vary: compare each line up to its last comma.
        let lines = trace.description.split(separator: "\n").map { line in String(line[..<line.lastIndex(of: ",")!]) }
        #expect(
            lines == [
                "TScreen — graph in 'feature', new",
                "  TRepository — graph in 'app' (lookup from 'feature'), new",
                "    TDatabase — singleton in 'app' (lookup from 'feature'), new",
                "      TLogger — singleton in 'app', new",
                "    TLogger — singleton in 'app' (lookup from 'feature'), cached",
            ])
        #expect(trace.description.hasSuffix(" ms"))
    }

    @Test func tracingChangesNoCaching() throws {
        let tree = appTree()
        let (traced, _) = try Container.trace { try tree.app.resolve(TDatabase.self) }
        #expect(try tree.app.resolve(TDatabase.self) === traced, "the instance built while tracing is the app's")
        let (again, trace) = try Container.trace { try tree.app.resolve(TDatabase.self) }
        #expect(again === traced)
        #expect(summary(trace.events) == ["0 TDatabase by - in 'app' from 'app' singleton cached"])
    }

    @Test func reportsForwardedKeysWithTheRegistrationThatAnswered() throws {
        let app = Container(name: "app")
        app.register(TGreeterImpl.self, lifetime: .singleton) { _ in TGreeterImpl() }.implements((any TGreeter).self)
        let (_, trace) = try Container.trace { try app.resolve((any TGreeter).self) }
        #expect(trace.events.map(\.key.description) == ["TGreeter"])
        #expect(trace.events.map(\.registration.description) == ["TGreeterImpl"])
        #expect(trace.events.first?.isNew == true)
    }

    @Test func nestedTracesBothHearEveryEvent() throws {
        let tree = appTree()
        let outer = TraceEventLog()
        let inner = TraceEventLog()
        try Container.withTrace {
            outer.append($0)
        } operation: {
            _ = try tree.app.resolve(TLogger.self)
            try Container.withTrace {
                inner.append($0)
            } operation: {
                _ = try tree.app.resolve(TDatabase.self)
            }
        }
        #expect(
            summary(outer.all) == [
                "0 TLogger by - in 'app' from 'app' singleton new",
                "1 TLogger by TDatabase in 'app' from 'app' singleton cached",
                "0 TDatabase by - in 'app' from 'app' singleton new",
            ])
        #expect(
            summary(inner.all) == [
                "1 TLogger by TDatabase in 'app' from 'app' singleton cached",
                "0 TDatabase by - in 'app' from 'app' singleton new",
            ])
    }

    @Test func tracesAsyncOperationsAndTheirChildTasks() async throws {
        let tree = appTree()
        let log = TraceEventLog()
        try await Container.withTrace {
            log.append($0)
        } operation: {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try tree.feature.resolve(TScreen.self) }
                try await group.waitForAll()
            }
        }
        #expect(log.all.map(\.key.description) == ["TLogger", "TDatabase", "TLogger", "TRepository", "TScreen"])
    }

    @Test func resolvesOutsideATraceAreNotReported() throws {
        let tree = appTree()
        let log = TraceEventLog()
        try Container.withTrace {
            log.append($0)
        } operation: {
            _ = try tree.app.resolve(TLogger.self)
        }
        _ = try tree.app.resolve(TDatabase.self)
        #expect(log.all.map(\.key.description) == ["TLogger"])
    }

    /// A trace follows its own task: while it runs, resolves on other threads (one that was
    /// already running, a `Thread` and a `DispatchQueue` block started by the operation) are
    /// not in it, and resolves on the tracing thread after them still are.
    @Test func resolvesOnOtherThreadsDuringATraceAreNotInIt() throws {
        let tree = appTree()
        let go = DispatchSemaphore(value: 0)
        let bystander = StartedThread { () throws -> Bool in
            guard go.wait(timeout: .now() + 10) == .success else { return false }
            _ = try tree.feature.resolve(TScreen.self)
            return true
        }
        let log = TraceEventLog()
        try Container.withTrace {
            log.append($0)
        } operation: {
            _ = try tree.app.resolve(TLogger.self)
            go.signal()
            #expect(try bystander.value(timeout: 10) == true, "a thread running before the trace resolved during it")
            let started = StartedThread { try tree.app.resolve(TDatabase.self) }
            #expect(try started.value(timeout: 10) != nil, "a thread started in the trace resolved")
            let queued = DispatchSemaphore(value: 0)
            let queuedResolved = Guarded(false)
            DispatchQueue.global().async {
                let screen = try? tree.feature.resolve(TScreen.self)
                queuedResolved.withLock { $0 = screen != nil }
                queued.signal()
            }
            #expect(queued.wait(timeout: .now() + 10) == .success)
            #expect(queuedResolved.current, "a DispatchQueue block started in the trace resolved")
            _ = try tree.app.resolve(TRepository.self)
        }
        #expect(
            summary(log.all) == [
                "0 TLogger by - in 'app' from 'app' singleton new",
                "1 TDatabase by TRepository in 'app' from 'app' singleton cached",
                "1 TLogger by TRepository in 'app' from 'app' singleton cached",
                "0 TRepository by - in 'app' from 'app' graph new",
            ])
    }

    /// A factory that hands its `Resolver` to another thread starts a separate resolve there,
    /// which the trace of the factory's own resolve does not report.
    @Test func aResolveAFactoryStartsOnAnotherThreadIsNotInTheTrace() throws {
        let app = Container(name: "app")
        app.register(TLogger.self, lifetime: .singleton) { _ in TLogger() }
        app.register(TDatabase.self) { r in
            let elsewhere = StartedThread { try r.resolve(TLogger.self) }
            guard let logger = try elsewhere.value(timeout: 10) else { throw CancellationError() }
            return TDatabase(logger: logger)
        }
        let (database, trace) = try Container.trace { try app.resolve(TDatabase.self) }
        #expect(summary(trace.events) == ["0 TDatabase by - in 'app' from 'app' graph new"])
        // The logger was resolved (on the other thread) and cached there, outside the trace.
        #expect(try app.resolve(TLogger.self) === database.logger)
    }
}

// MARK: Traces of warm resolves

extension TraceTests {
    /// Resolves that take the memoized paths are traced too.
    @Suite struct Warm {
        final class S: Sendable {}
        final class G: Sendable {}

        /// Warm cached and graph resolves each give an event, cached ones not new.
        @Test func warmResolvesAreTracedWithWhetherTheyBuilt() throws {
            let c = Container(name: "c")
            c.register(S.self, lifetime: .singleton) { _ in S() }
            c.register(G.self, needing: S.self) { G() }
            for _ in 0..<10 {
                _ = try c.resolve(S.self)
                _ = try c.resolve(G.self)
            }
            let (_, trace) = try Container.trace {
                for _ in 0..<3 {
                    _ = try c.resolve(S.self)
                    _ = try c.resolve(G.self)
                }
            }
            #expect(trace.events.count == 9)
            #expect(trace.events.filter { $0.key.typeName == "S" }.allSatisfy { !$0.isNew })
            #expect(trace.events.filter { $0.key.typeName == "G" }.allSatisfy { $0.isNew })
        }
    }
}
