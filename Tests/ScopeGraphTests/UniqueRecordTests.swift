import Foundation
import Testing

@testable import ScopeGraph

/// A `unique` registration is stored as a record until something needs an `Entry` (see
/// PlainRegistration.swift). Everything a registration does must work the same whichever form
/// it is in when it is asked: these tests take each operation at each point of that change.
@Suite struct UniqueRecordTests {
    private typealias Widget = RecordFixtures.Widget
    private typealias Named = RecordFixtures.Named
    private typealias Gear = RecordFixtures.Gear
    private final class Holder: @unchecked Sendable {
        var widget: Widget?
    }
    private typealias Payload = RecordFixtures.Payload

    private func isRecord<T>(_ type: T.Type, tag: ServiceTag? = nil, in container: Container) -> Bool {
        RecordFixtures.isRecord(type, tag: tag, in: container)
    }

    /// (Whether the first resolve builds from the record depends on whether an override scope
    /// may be active anywhere in the process, as in parallel tests: then every resolve takes
    /// the general path, which makes the entry.)
    @Test func aUniqueRegistrationIsARecordUntilItsSecondResolveAtTheLatest() throws {
        let container = Container(name: "app")
        let registration = container.register(Widget.self, lifetime: .unique) { _ in Widget() }
        #expect(registration.entry == nil)
        #expect(isRecord(Widget.self, in: container))
        let first = try container.resolve(Widget.self)
        let second = try container.resolve(Widget.self)
        #expect(!isRecord(Widget.self, in: container))
        #expect(first !== second)
        #expect(try container.resolve(Widget.self) !== second)
    }

    @Test func otherLifetimesAreEntriesFromTheStart() {
        let container = Container(name: "app")
        for lifetime in [Lifetime.graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer] {
            let registration = container.register(Widget.self, tag: ServiceTag("\(lifetime)"), lifetime: lifetime) {
                _ in Widget()
            }
            #expect(registration.entry != nil, "\(lifetime)")
        }
    }

    @Test(arguments: 0..<3)
    func onResolvedAddedAfterAnyNumberOfResolvesRunsOnTheNextOnes(resolvesBefore: Int) throws {
        let container = Container(name: "app")
        let registration = container.register(Widget.self, lifetime: .unique) { _ in Widget() }
        for _ in 0..<resolvesBefore { _ = try container.resolve(Widget.self) }
        let runs = Counter()
        registration.onResolved { _, _ in runs.increment() }
        #expect(!isRecord(Widget.self, in: container))
        _ = try container.resolve(Widget.self)
        _ = try container.resolve(Widget.self)
        #expect(runs.value == 2)
    }

    @Test(arguments: 0..<3)
    func implementsAddedAfterAnyNumberOfResolvesAnswersForTheForwardedType(resolvesBefore: Int) throws {
        let container = Container(name: "app")
        let registration = container.register(Gear.self, lifetime: .unique) { _ in Gear("forwarded") }
        for _ in 0..<resolvesBefore { _ = try container.resolve(Gear.self) }
        registration.implements((any Named).self)
        #expect(try container.resolve((any Named).self).name == "forwarded")
        #expect(container.description.contains("implements"))
    }

    @Test(arguments: 0..<3)
    func removeThroughTheHandleWorksAfterAnyNumberOfResolves(resolvesBefore: Int) throws {
        let container = Container(name: "app")
        let registration = container.register(Widget.self, lifetime: .unique) { _ in Widget() }
        for _ in 0..<resolvesBefore { _ = try container.resolve(Widget.self) }
        container.remove(registration)
        #expect(try container.resolveIfRegistered(Widget.self) == nil)
    }

    @Test func theHandleOfAReplacedRecordChangesNothing() throws {
        let container = Container(name: "app")
        let old = container.register(Widget.self, lifetime: .unique) { _ in Widget("old") }
        container.register(Widget.self, lifetime: .unique) { _ in Widget("new") }
        let runs = Counter()
        old.onResolved { _, _ in runs.increment() }.implements(Payload.self)
        container.remove(old)
        #expect(try container.resolve(Widget.self).name == "new")
        #expect(try container.resolveIfRegistered(Payload.self) == nil)
        #expect(runs.value == 0)
        #expect(old.key.typeName == "Widget" && old.lifetime == .unique)
    }

    /// Whatever the lifetime (a record's handle or an entry's), a handle whose registration
    /// was removed does not bring it back under a forwarded key.
    @Test(arguments: [Lifetime.unique, .graph, .singleton])
    func implementsThroughTheHandleOfARemovedRegistrationAddsNothing(lifetime: Lifetime) throws {
        let container = Container(name: "app")
        let registration = container.register(Gear.self, lifetime: lifetime) { _ in Gear() }
        _ = try container.resolve(Gear.self)
        container.remove(registration)
        registration.implements((any Named).self)
        #expect(try container.resolveIfRegistered((any Named).self) == nil)
        #expect(try container.resolveIfRegistered(Gear.self) == nil)
    }

    @Test func aChildResolvingItsParentsRecordSharesItsEntry() throws {
        let app = Container(name: "app")
        app.register(Widget.self, lifetime: .unique) { _ in Widget("app's") }
        let feature = app.makeChild(name: "feature")
        feature.register(Payload.self, lifetime: .unique) { _ in Payload() }
        // The child has registrations of its own: its lookup walks to the parent, which makes
        // the parent's record an entry (a walk's result is memoized).
        #expect(try feature.resolve(Widget.self).name == "app's")
        #expect(!isRecord(Widget.self, in: app))
        #expect(try feature.resolve(Widget.self).name == "app's")
        #expect(try app.resolve(Widget.self).name == "app's")
    }

    @Test func aTaggedRecordResolvesOnlyUnderItsTag() throws {
        let container = Container(name: "app")
        container.register(Widget.self, tag: "primary", lifetime: .unique) { _ in Widget("primary") }
        #expect(try container.resolve(Widget.self, tag: "primary").name == "primary")
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Widget.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(try container.resolve(Widget.self, tag: "primary").name == "primary")
    }

    @Test func aThrowingFactoryOfARecordReportsItsKeyAndPath() throws {
        let container = Container(name: "app")
        container.register(Widget.self, tag: "broken", lifetime: .unique) { _ in throw Boom() }
        container.register(Holder.self, lifetime: .unique) { r in
            let holder = Holder()
            holder.widget = try r.resolve(Widget.self, tag: "broken")
            return holder
        }
        for _ in 0..<3 {
            let error = try #require(throws: ResolutionError.self) { try container.resolve(Holder.self) }
            #expect(error.kind.caseName == "factoryFailed")
            #expect(error.key.tag == "broken")
            #expect(error.pathDescriptions == ["Holder", "Widget[tag: \"broken\"]"])
        }
        let direct = try #require(throws: ResolutionError.self) { try container.resolve(Widget.self, tag: "broken") }
        #expect(direct.pathDescriptions == ["Widget[tag: \"broken\"]"])
    }

    @Test func describingValidatingAndGraphingSeeRecordsAndChangeNoResult() throws {
        let container = Container(name: "app")
        container.register(Widget.self, lifetime: .unique) { _ in Widget() }
        container.register(Holder.self, lifetime: .unique) { r in
            let holder = Holder()
            holder.widget = try r.resolve(Widget.self)
            return holder
        }
        #expect(container.description.contains("Widget"))
        #expect(container.validate().isValid)
        let graph = container.dependencyGraph()
        #expect(graph.nodes.count == 2)
        #expect(graph.edges.count == 1)
        #expect(try container.resolve(Holder.self).widget != nil)
    }

    @Test func resolveAllMakesEntriesOfTheRequestedTypesRecordsOnly() throws {
        let container = Container(name: "app")
        container.register(Widget.self, tag: "a", lifetime: .unique) { _ in Widget("a") }
        container.register(Widget.self, tag: "b", lifetime: .unique) { _ in Widget("b") }
        container.register(Payload.self, lifetime: .unique) { _ in Payload() }
        #expect(try container.resolveAll(Widget.self).map(\.name) == ["a", "b"])
        #expect(isRecord(Payload.self, in: container))
        #expect(try container.resolveAll(Widget.self).map(\.name) == ["a", "b"])
    }

    @Test func bootstrappingAndErrorSuggestionsLeaveRecordsAsTheyAre() throws {
        let container = Container(name: "app")
        container.register(Widget.self, tag: "a", lifetime: .unique) { _ in Widget() }
        container.register(Payload.self, lifetime: .eagerSingleton) { _ in Payload() }
        try container.bootstrap()
        #expect(isRecord(Widget.self, tag: "a", in: container))
        // The error suggests the tagged registration, read without making its entry.
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Widget.self) }
        #expect(error.description.contains("\"a\""))
        #expect(isRecord(Widget.self, tag: "a", in: container))
    }

    @Test func aSnapshotTakenWhileARecordIsOneRestoresItAndUndoesLaterBlocks() throws {
        let container = Container(name: "app")
        let registration = container.register(Widget.self, lifetime: .unique) { _ in Widget() }
        let snapshot = container.captureState()
        let runs = Counter()
        registration.onResolved { _, _ in runs.increment() }
        _ = try container.resolve(Widget.self)
        #expect(runs.value == 1)
        container.restoreState(snapshot)
        #expect(isRecord(Widget.self, in: container))
        _ = try container.resolve(Widget.self)
        #expect(runs.value == 1, "the block added after the snapshot is undone")
        // The handle still reaches its (restored) registration.
        registration.onResolved { _, _ in runs.increment() }
        _ = try container.resolve(Widget.self)
        #expect(runs.value == 2)
    }

    /// Resolved once, the registration is still a record; twice, an entry.
    @Test(arguments: [1, 2])
    func whatARecordsFactoryCapturesGoesWithItsContainer(resolves: Int) throws {
        weak var watched: Payload?
        do {
            let container = Container(name: "app")
            let captured = Payload()
            watched = captured
            container.register(Widget.self, lifetime: .unique) { _ in
                _ = captured
                return Widget()
            }
            for _ in 0..<resolves { _ = try container.resolve(Widget.self) }
        }
        #expect(watched == nil)
    }

    @Test func replacingARecordWhileItsFirstResolveRunsKeepsThatFactorysCapturesAlive() throws {
        let container = Container(name: "app")
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        weak var watched: Payload?
        do {
            let captured = Payload()
            watched = captured
            container.register(Widget.self, lifetime: .unique) { _ in
                started.signal()
                _ = proceed.wait(timeout: .now() + 5)
                // Reads the capture after the replacement: freed, this would crash.
                return Widget("old, \(ObjectIdentifier(captured) == ObjectIdentifier(captured) ? "intact" : "?")")
            }
        }
        let result = Guarded<String?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            result.withLock { $0 = (try? container.resolve(Widget.self))?.name }
            finished.signal()
        }.start()
        #expect(started.wait(timeout: .now() + 5) == .success)
        container.register(Widget.self, lifetime: .unique) { _ in Widget("new") }
        #expect(watched != nil, "the running construction holds the replaced factory")
        proceed.signal()
        #expect(finished.wait(timeout: .now() + 5) == .success)
        #expect(result.current == "old, intact")
        #expect(watched == nil)
        #expect(try container.resolve(Widget.self).name == "new")
    }

    @Test func manyThreadsResolvingAndChangingRecordsAtOnceAgree() throws {
        for round in 0..<20 {
            let container = Container(name: "round \(round)")
            let tags = (0..<16).map { ServiceTag("w\($0)") }
            let handles = tags.map { tag in
                container.register(Widget.self, tag: tag, lifetime: .unique) { _ in Widget(tag.name) }
            }
            let failures = Counter()
            let blockRuns = Counter()
            runOnThreads(4) { thread in
                for (index, tag) in tags.enumerated() {
                    if thread == 0, index % 4 == 0 { handles[index].onResolved { _, _ in blockRuns.increment() } }
                    if thread == 1, index % 4 == 1 { handles[index].implements(Payload.self, tag: tag) }
                    for _ in 0..<3 where (try? container.resolve(Widget.self, tag: tag).name) != tag.name {
                        failures.increment()
                    }
                }
            }
            #expect(failures.value == 0)
            for (index, tag) in tags.enumerated() where index % 4 == 1 {
                // Forwarded (a Widget is no Payload): a type mismatch, not "not registered".
                let error = try #require(throws: ResolutionError.self) { try container.resolve(Payload.self, tag: tag) }
                #expect(error.kind.caseName == "typeMismatch")
            }
            #expect(blockRuns.value > 0)
        }
    }
}
