import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// Adversarial probes of `unique` registrations stored as records (PlainRegistration.swift):
/// every operation at every point of the record → entry change, against the design contract:
/// cycles, optionals and forwarding, snapshots, registration order, removal, factories that change
/// their own container, lifetimes, errors, type shapes and threads behave as they do for any
/// registration.
@Suite struct UniqueRecordTests {
    private final class A: @unchecked Sendable { var b: B? }
    private final class B: @unchecked Sendable {
        let a: A?
        init(a: A? = nil) { self.a = a }
    }
    private final class S: Sendable {}
    private final class G: Sendable {}
    private final class Top: Sendable {}
    private final class Mid: Sendable {}
    private final class Leaf: Sendable {}
    private typealias Widget = RecordFixtures.Widget
    private typealias Named = RecordFixtures.Named
    private typealias Gear = RecordFixtures.Gear
    private typealias Payload = RecordFixtures.Payload
    private struct Big: Sendable, Equatable {
        var a = 1, b = 2, c = 3, d = 4, e = 5, f = "six"
    }
    private enum Shape: Sendable, Equatable {
        case circle(Double)
        case named(String, Int)
    }

    /// The thrown `ResolutionError` of `body`, or nil (with an issue) when it did not throw one.
    private func resolutionError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation)
        -> ResolutionError?
    {
        do {
            try body()
            Issue.record("expected a ResolutionError, nothing thrown", sourceLocation: sourceLocation)
        } catch let error as ResolutionError {
            return error
        } catch {
            Issue.record("expected a ResolutionError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    // MARK: Cycles through records

    @Test func aCycleBetweenTwoRecordsHasTheExactPathEveryTime() throws {
        let c = Container(name: "c")
        c.register(A.self, lifetime: .unique, needing: B.self) { A() }
        c.register(B.self, lifetime: .unique) { r in B(a: try r.resolve(A.self)) }
        for _ in 0..<3 {
            let e = resolutionError { _ = try c.resolve(A.self) }
            #expect(e?.kind.caseName == "circularDependency")
            #expect(e?.pathDescriptions == ["A", "B", "A"])
            #expect(e?.key.typeName == "A")
        }
        let fromB = resolutionError { _ = try c.resolve(B.self) }
        #expect(fromB?.pathDescriptions == ["B", "A", "B"])
    }

    @Test func aRecordThatAsksForItselfIsACycleOnItsFirstResolveAndAfter() throws {
        let c = Container(name: "c")
        let runs = Counter()
        c.register(A.self, lifetime: .unique, needing: A.self, counting: runs) { A() }
        for attempt in 1...3 {
            let e = resolutionError { _ = try c.resolve(A.self) }
            #expect(e?.kind.caseName == "circularDependency")
            #expect(e?.pathDescriptions == ["A", "A"])
            #expect(runs.value == attempt, "the factory runs once per attempt")
        }
    }

    @Test func aCycleBetweenTaggedRecordsOfOneTypeNamesTheTags() throws {
        let c = Container(name: "c")
        c.register(Widget.self, tag: "x", lifetime: .unique) { r in
            _ = try r.resolve(Widget.self, tag: "y")
            return Widget("x")
        }
        c.register(Widget.self, tag: "y", lifetime: .unique) { r in
            _ = try r.resolve(Widget.self, tag: "x")
            return Widget("y")
        }
        // An untagged registration of the same type is not part of the cycle.
        c.register(Widget.self, lifetime: .unique) { _ in Widget("plain") }
        for _ in 0..<2 {
            let e = resolutionError { _ = try c.resolve(Widget.self, tag: "x") }
            #expect(e?.kind.caseName == "circularDependency")
            #expect(e?.pathDescriptions == ["Widget[tag: \"x\"]", "Widget[tag: \"y\"]", "Widget[tag: \"x\"]"])
        }
        #expect(try c.resolve(Widget.self).name == "plain")
    }

    @Test(arguments: [true, false])
    func aCycleBetweenARecordAndAGraphRegistration(startAtTheRecord: Bool) throws {
        let c = Container(name: "c")
        c.register(A.self, lifetime: .unique, needing: G.self) { A() }
        c.register(G.self, lifetime: .graph, needing: A.self) { G() }
        for _ in 0..<2 {
            if startAtTheRecord {
                let e = resolutionError { _ = try c.resolve(A.self) }
                #expect(e?.pathDescriptions == ["A", "G", "A"])
                #expect(e?.kind.caseName == "circularDependency")
            } else {
                let e = resolutionError { _ = try c.resolve(G.self) }
                #expect(e?.pathDescriptions == ["G", "A", "G"])
                #expect(e?.kind.caseName == "circularDependency")
            }
        }
    }

    @Test func aCycleBetweenARecordAndASingletonFailsCleanlyFromBothEndsRepeatedly() throws {
        let c = Container(name: "c")
        let singletonRuns = Counter()
        c.register(A.self, lifetime: .unique, needing: S.self) { A() }
        c.register(S.self, lifetime: .singleton, needing: A.self, counting: singletonRuns) { S() }
        for _ in 0..<2 {
            let fromRecord = Self.resolveOnAThread(A.self, in: c).result(timeout: 10)
            #expect(try fromRecord?.get() == ["A", "S", "A", "circularDependency", "A"])
            let fromSingleton = Self.resolveOnAThread(S.self, in: c).result(timeout: 10)
            #expect(try fromSingleton?.get() == ["S", "A", "S", "circularDependency", "S"])
        }
        // Nothing was cached: fixed, the singleton builds once.
        c.register(A.self, lifetime: .unique) { _ in A() }
        let before = singletonRuns.value
        let s1 = try c.resolve(S.self)
        let s2 = try c.resolve(S.self)
        #expect(s1 === s2)
        #expect(singletonRuns.value == before + 1)
    }

    /// The parent holds one end, the child the other; the first resolve starts in the child.
    @Test func aCycleAcrossParentAndChildStartedFromTheChild() throws {
        let app = Container(name: "app")
        app.register(A.self, lifetime: .unique, needing: B.self) { A() }
        let child = app.makeChild(name: "child")
        child.register(B.self, lifetime: .unique) { r in B(a: try r.resolve(A.self)) }
        for _ in 0..<2 {
            let e = resolutionError { _ = try child.resolve(A.self) }
            #expect(e?.kind.caseName == "circularDependency")
            #expect(e?.pathDescriptions == ["A", "B", "A"])
        }
        let e = resolutionError { _ = try child.resolve(B.self) }
        #expect(e?.pathDescriptions == ["B", "A", "B"])
        // From the parent, B is not visible: not a cycle but a missing dependency.
        let fromApp = resolutionError { _ = try app.resolve(A.self) }
        #expect(fromApp?.kind.caseName == "notRegistered")
        #expect(fromApp?.pathDescriptions == ["A", "B"])
    }

    /// Both records in the parent, the first resolve from an empty (transparent) child.
    @Test func aCycleOfParentRecordsStartedFromAnEmptyChild() throws {
        let app = Container(name: "app")
        app.register(A.self, lifetime: .unique, needing: B.self) { A() }
        app.register(B.self, lifetime: .unique) { r in B(a: try r.resolve(A.self)) }
        let request = app.makeChild(name: "request")
        for _ in 0..<3 {
            let e = resolutionError { _ = try request.resolve(A.self) }
            #expect(e?.kind.caseName == "circularDependency")
            #expect(e?.pathDescriptions == ["A", "B", "A"])
        }
    }

    @Test func aCycleAcrossACollaborationLink() throws {
        let x = Container(name: "x")
        let y = Container(name: "y")
        x.collaborate(with: y)
        x.register(A.self, lifetime: .unique, needing: B.self) { A() }
        // B's factory resolves from where the top-level resolve started (x), so it sees A.
        y.register(B.self, lifetime: .unique) { r in B(a: try r.resolve(A.self)) }
        for _ in 0..<2 {
            #expect(resolutionError { _ = try x.resolve(A.self) }?.pathDescriptions == ["A", "B", "A"])
            #expect(resolutionError { _ = try x.resolve(B.self) }?.pathDescriptions == ["B", "A", "B"])
        }
        // From y (which does not link to x), A is missing.
        let fromY = resolutionError { _ = try y.resolve(B.self) }
        #expect(fromY?.kind.caseName == "notRegistered")
        #expect(fromY?.pathDescriptions == ["B", "A"])
        #expect(fromY?.searched == ["y"])
    }

    enum Materializer: String, CaseIterable, Sendable {
        case description, onResolved, implements, resolveAll
    }

    /// The record becomes an entry while its own first build runs (from inside its factory):
    /// the entry shares the record's identity, so asking for the key again is the cycle.
    @Test(arguments: Materializer.allCases)
    func aRecordThatBecomesAnEntryDuringItsFirstBuildStillDetectsItsCycle(materializer: Materializer) throws {
        let c = Container(name: "c")
        c.register(Payload.self, lifetime: .unique) { _ in Payload() }
        let handle = Guarded<Registration<Widget>?>(nil)
        defer { handle.withLock { $0 = nil } }  // the handle holds the factory that captures it
        let registration = c.register(Widget.self, lifetime: .unique) { [unowned c] r in
            switch materializer {
            case .description: _ = c.description
            case .onResolved: handle.current?.onResolved { _, _ in }
            case .implements: handle.current?.implements(Gear.self)
            case .resolveAll: _ = try r.resolveAll(Payload.self)
            }
            _ = try r.resolve(Widget.self)
            return Widget()
        }
        handle.withLock { $0 = registration }
        let e = resolutionError { _ = try c.resolve(Widget.self) }
        #expect(e?.kind.caseName == "circularDependency")
        #expect(e?.pathDescriptions == ["Widget", "Widget"])
    }

    /// Registers `T` as `unique` with a factory that signals `started`, waits for `proceed`
    /// (at most 5 s), asks for `next` and returns `make()`; then resolves `T` on a thread of its
    /// own. The thread's value: the error's path, kind and key, or ["no error"].
    private static func firstBuildOnAThread<T: Sendable, Next>(
        of type: T.Type, in c: Container, askingFor next: Next.Type, started: DispatchSemaphore,
        proceed: DispatchSemaphore, _ make: @escaping @Sendable () -> T
    ) -> StartedThread<[String]> {
        c.register(type, lifetime: .unique) { r in
            started.signal()
            _ = proceed.wait(timeout: .now() + 5)
            _ = try r.resolve(next)
            return make()
        }
        return resolveOnAThread(type, in: c)
    }

    /// Resolves `T` from `c` on a thread of its own. The thread's value: the error's path, kind
    /// and key, or ["no error"].
    private static func resolveOnAThread<T>(_ type: T.Type, in c: Container) -> StartedThread<[String]> {
        StartedThread { () -> [String] in
            do {
                _ = try c.resolve(type)
                return ["no error"]
            } catch let error as ResolutionError {
                return error.pathDescriptions + [error.kind.caseName, error.key.typeName]
            }
        }
    }

    /// The same, from another thread: the record becomes an entry (description) while its
    /// first build waits; then the factory asks for its own key.
    @Test func aRecordMaterializedByAnotherThreadDuringItsFirstBuildStillDetectsItsCycle() throws {
        let c = Container(name: "c")
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let pending = Self.firstBuildOnAThread(
            of: Widget.self, in: c, askingFor: Widget.self, started: started, proceed: proceed
        ) { Widget() }
        #expect(started.wait(timeout: .now() + 5) == .success)
        #expect(c.description.contains("Widget"))
        proceed.signal()
        #expect(try pending.value(timeout: 10) == ["Widget", "Widget", "circularDependency", "Widget"])
    }

    /// B (graph) takes A in its initializer; A (unique) gets B by property, through a block
    /// added after A's first resolve (so on the entry made from the record). Resolving B closes
    /// the cycle on the B being returned.
    @Test func aMixedCycleClosesThroughABlockAddedToARecordAfterItsFirstResolve() throws {
        let c = Container(name: "c")
        let registration = c.register(A.self, lifetime: .unique) { _ in A() }
        c.register(B.self, lifetime: .graph) { r in B(a: try r.resolve(A.self)) }
        _ = try c.resolve(A.self)
        registration.onResolved { r, a in a.b = try r.resolve(B.self) }
        let b = try c.resolve(B.self)
        defer { b.a?.b = nil }  // the test's a <-> b cycle
        #expect(b.a?.b === b)
    }

    /// Resolving A itself: A1's block resolves B (graph, new), whose factory takes a new A2;
    /// A2's block then gets the B this resolve holds. Every request is for a key whose factory
    /// is not running, and the graph instance closes the chain: the contract gives a result.
    /// (`neverARecord`: the same with an entry made directly, as before records existed.)
    @Test(arguments: [false, true])
    func aBlockOfAUniqueRecordThatReachesItsOwnKeyThroughAGraphInstanceResolves(neverARecord: Bool) throws {
        let c = Container(name: "c")
        let registration =
            neverARecord
            ? c.makeRegistration(Key(A.self, tag: nil), lifetime: .unique, factory: .plain { _ in A() }, in: c)
            : c.register(A.self, lifetime: .unique) { _ in A() }
        let bRuns = Counter()
        c.register(B.self, lifetime: .graph) { r in
            bRuns.increment()
            return B(a: try r.resolve(A.self))
        }
        _ = try c.resolve(A.self)
        registration.onResolved { r, a in a.b = try r.resolve(B.self) }
        let a1 = try c.resolve(A.self)
        let b = try #require(a1.b)
        defer { b.a?.b = nil }  // the test's second a <-> b cycle
        #expect(b.a !== a1)
        #expect(b.a?.b === b)
        #expect(bRuns.value == 1)
    }

    // MARK: Optionals, resolveIfRegistered, forwarding

    @Test func anOptionalRequestFallsBackToARecordBeforeAndAfterItBecomesAnEntry() throws {
        let c = Container(name: "c")
        let runs = Counter()
        c.register(Widget.self, tag: "t", lifetime: .unique, counting: runs) { Widget("t") }
        let first = try c.resolve(Optional<Widget>.self, tag: "t")
        let second = try c.resolve(Optional<Widget>.self, tag: "t")
        let third = try c.resolve(Widget.self, tag: "t")
        #expect(first?.name == "t" && second?.name == "t" && third.name == "t")
        #expect(first !== second)
        #expect(runs.value == 3)
        // Untagged: nothing registered; it throws exactly as resolving Widget would.
        let e = resolutionError { _ = try c.resolve(Optional<Widget>.self) }
        #expect(e?.kind.caseName == "notRegistered")
        #expect(e?.key.typeName == "Widget")
        #expect(e?.pathDescriptions == ["Widget"])
        #expect(e?.description.contains("\"t\"") == true)
        #expect(try c.resolveIfRegistered(Optional<Widget>.self) == nil)
    }

    @Test func aRecordAskingForItsOwnOptionalIsACycle() throws {
        let c = Container(name: "c")
        c.register(Widget.self, lifetime: .unique) { r in
            _ = try r.resolve(Optional<Widget>.self)
            return Widget()
        }
        for _ in 0..<2 {
            let e = resolutionError { _ = try c.resolve(Widget.self) }
            #expect(e?.kind.caseName == "circularDependency")
            #expect(e?.pathDescriptions == ["Widget", "Widget"])
        }
    }

    @Test func resolveIfRegisteredThroughTheLifeOfARecord() throws {
        let c = Container(name: "c")
        let handle = c.register(Widget.self, lifetime: .unique) { _ in Widget("one") }
        #expect(try c.resolveIfRegistered(Widget.self)?.name == "one")
        #expect(try c.resolveIfRegistered(Widget.self)?.name == "one")
        #expect(try c.resolveIfRegistered(Widget.self, tag: "other") == nil)
        c.remove(handle)
        #expect(try c.resolveIfRegistered(Widget.self) == nil)
        c.register(Widget.self, lifetime: .unique) { _ in Widget("two") }
        #expect(try c.resolveIfRegistered(Widget.self)?.name == "two")
        // A record whose dependency is missing throws: something is registered.
        c.register(Gear.self, lifetime: .unique) { r in Gear(try r.resolve(Widget.self, tag: "missing").name) }
        for _ in 0..<2 {
            let e = resolutionError { _ = try c.resolveIfRegistered(Gear.self) }
            #expect(e?.kind.caseName == "notRegistered")
            #expect(e?.pathDescriptions == ["Gear", "Widget[tag: \"missing\"]"])
        }
    }

    @Test(arguments: [0, 1, 2])
    func forwardedTypesOfARecordBeforeAndAfterItsFirstResolves(resolvesBefore: Int) throws {
        let c = Container(name: "c")
        let runs = Counter()
        let registration = c.register(Gear.self, lifetime: .unique) { _ in
            runs.increment()
            return Gear("g")
        }
        for _ in 0..<resolvesBefore { _ = try c.resolve(Gear.self) }
        registration.implements((any Named).self).implements(Payload.self, tag: "p")
        let named = try c.resolve((any Named).self)
        #expect(named.name == "g")
        #expect(try c.resolve(Optional<any Named>.self)?.name == "g")
        #expect(try c.resolveIfRegistered((any Named).self)?.name == "g")
        // Every forwarded resolve of a unique registration is a new instance.
        #expect(try c.resolve((any Named).self) as AnyObject !== named as AnyObject)
        let mismatch = resolutionError { _ = try c.resolve(Payload.self, tag: "p") }
        #expect(mismatch?.kind.caseName == "typeMismatch")
        #expect(mismatch?.key.typeName == "Payload")
        #expect(mismatch?.key.tag == "p")
        // Something is registered: resolveIfRegistered does not hide the mismatch.
        let quiet = resolutionError { _ = try c.resolveIfRegistered(Payload.self, tag: "p") }
        #expect(quiet?.kind.caseName == "typeMismatch")
        // From a child with registrations of its own (a walk).
        let child = c.makeChild(name: "child")
        child.register(S.self, lifetime: .unique) { _ in S() }
        #expect(try child.resolve((any Named).self).name == "g")
        #expect(c.description.contains("implements"))
    }

    /// A record takes over another registration's forwarded key, then that registration is
    /// removed: the record stays. And the other way round.
    @Test func aForwardedKeyAndARecordTakingEachOthersPlace() throws {
        let c = Container(name: "c")
        let gear = c.register(Gear.self, lifetime: .unique) { _ in Gear("gear") }
        gear.implements((any Named).self, tag: "n")
        #expect(try c.resolve((any Named).self, tag: "n").name == "gear")
        c.register((any Named).self, tag: "n", lifetime: .unique) { _ in Gear("record") }
        #expect(try c.resolve((any Named).self, tag: "n").name == "record")
        c.remove(gear)
        #expect(try c.resolve((any Named).self, tag: "n").name == "record")
        #expect(try c.resolveIfRegistered(Gear.self) == nil)

        let c2 = Container(name: "c2")
        let record = c2.register((any Named).self, tag: "n", lifetime: .unique) { _ in Gear("record") }
        let gear2 = c2.register(Gear.self, lifetime: .unique) { _ in Gear("gear") }
        gear2.implements((any Named).self, tag: "n")
        #expect(try c2.resolve((any Named).self, tag: "n").name == "gear")
        // The displaced record's handle is inert.
        c2.remove(record)
        #expect(try c2.resolve((any Named).self, tag: "n").name == "gear")
        c2.remove(gear2)
        #expect(try c2.resolveIfRegistered((any Named).self, tag: "n") == nil)
    }

    // MARK: Snapshots

    @Test func restoringUndoesMaterializingReplacingRemovingAndReRegisteringRecords() throws {
        let c = Container(name: "c")
        let a = c.register(Widget.self, tag: "a", lifetime: .unique) { _ in Widget("a") }
        let b = c.register(Widget.self, tag: "b", lifetime: .unique) { _ in Widget("b") }
        c.register(Widget.self, tag: "g", lifetime: .graph) { _ in Widget("g") }
        let snapshot = c.captureState()
        // a becomes an entry (and gets a block), b is replaced, a is removed, c is added.
        _ = try c.resolve(Widget.self, tag: "a")
        _ = try c.resolve(Widget.self, tag: "a")
        let blockRuns = Counter()
        a.onResolved { _, _ in blockRuns.increment() }
        let replacement = c.register(Widget.self, tag: "b", lifetime: .unique) { _ in Widget("b2") }
        c.remove(a)
        c.register(Widget.self, tag: "c", lifetime: .unique) { _ in Widget("c") }
        #expect(try c.resolveAll(Widget.self).map(\.name) == ["g", "b2", "c"])
        c.restoreState(snapshot)
        #expect(try c.resolveAll(Widget.self).map(\.name) == ["a", "b", "g"])
        #expect(try c.resolve(Widget.self, tag: "a").name == "a")
        #expect(try c.resolve(Widget.self, tag: "b").name == "b")
        #expect(try c.resolveIfRegistered(Widget.self, tag: "c") == nil)
        #expect(blockRuns.value == 0, "the block added after the snapshot is undone")
        // The handles of the restored registrations work again; the replacement's is inert.
        a.onResolved { _, _ in blockRuns.increment() }
        _ = try c.resolve(Widget.self, tag: "a")
        #expect(blockRuns.value == 1)
        replacement.implements(Payload.self)
        #expect(try c.resolveIfRegistered(Payload.self) == nil)
        c.remove(replacement)
        #expect(try c.resolve(Widget.self, tag: "b").name == "b")
        c.remove(b)
        #expect(try c.resolveIfRegistered(Widget.self, tag: "b") == nil)
    }

    @Test func aSnapshotOfARecordMadeAnEntryRestoresItsForwardsAfterRemoval() throws {
        let c = Container(name: "c")
        let gear = c.register(Gear.self, lifetime: .unique) { _ in Gear("g") }
        gear.implements((any Named).self)
        let snapshot = c.captureState()
        c.remove(gear)
        #expect(try c.resolveIfRegistered((any Named).self) == nil)
        c.restoreState(snapshot)
        #expect(try c.resolve((any Named).self).name == "g")
        #expect(try c.resolve(Gear.self).name == "g")
        // Removed again through the same handle: both keys go.
        c.remove(gear)
        #expect(try c.resolveIfRegistered((any Named).self) == nil)
        #expect(try c.resolveIfRegistered(Gear.self) == nil)
    }

    @Test func restoringAParentForgetsAChildsMemoOfAnEntryMadeFromARecord() throws {
        let app = Container(name: "app")
        let handle = app.register(Widget.self, lifetime: .unique) { _ in Widget("app") }
        let child = app.makeChild(name: "child")
        child.register(Payload.self, lifetime: .unique) { _ in Payload() }
        let snapshot = app.captureState()
        let runs = Counter()
        handle.onResolved { _, _ in runs.increment() }
        for _ in 0..<3 { _ = try child.resolve(Widget.self) }
        #expect(runs.value == 3)
        app.restoreState(snapshot)
        for _ in 0..<3 { #expect(try child.resolve(Widget.self).name == "app") }
        #expect(runs.value == 3)
    }

    // MARK: Registration order

    @Test func resolveAllAndDescriptionFollowRegistrationOrderAcrossRecordsAndEntries() throws {
        let c = Container(name: "c")
        c.register(Widget.self, tag: "a", lifetime: .unique) { _ in Widget("a") }
        c.register(Widget.self, tag: "b", lifetime: .graph) { _ in Widget("b") }
        c.register(Widget.self, tag: "c", lifetime: .unique) { _ in Widget("c") }
        c.register(Widget.self, tag: "d", lifetime: .singleton) { _ in Widget("d") }
        let snapshot = c.captureState()
        // Replacing a moves it to the end, whether the old one was a record or an entry.
        _ = try c.resolve(Widget.self, tag: "c")
        _ = try c.resolve(Widget.self, tag: "c")
        c.register(Widget.self, tag: "a", lifetime: .unique) { _ in Widget("a2") }
        #expect(try c.resolveAll(Widget.self).map(\.name) == ["b", "c", "d", "a2"])
        #expect(describedTags(c) == ["b", "c", "d", "a"])
        c.register(Widget.self, tag: "c", lifetime: .unique) { _ in Widget("c2") }
        #expect(try c.resolveAll(Widget.self).map(\.name) == ["b", "d", "a2", "c2"])
        #expect(describedTags(c) == ["b", "d", "a", "c"])
        c.restoreState(snapshot)
        #expect(try c.resolveAll(Widget.self).map(\.name) == ["a", "b", "c", "d"])
        #expect(describedTags(c) == ["a", "b", "c", "d"])
    }

    /// The tags of the Widget lines of `c.description`, in order.
    private func describedTags(_ c: Container) -> [String] {
        c.description.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "Widget[tag: \"") else { return nil }
            return String(line[range.upperBound...].prefix(1))
        }
    }

    @Test func resolveAllHidesAParentsRecordBehindTheSameKeyInTheChild() throws {
        let app = Container(name: "app")
        app.register(Widget.self, tag: "a", lifetime: .unique) { _ in Widget("app a") }
        app.register(Widget.self, tag: "b", lifetime: .unique) { _ in Widget("app b") }
        let child = app.makeChild(name: "child")
        child.register(Widget.self, tag: "b", lifetime: .unique) { _ in Widget("child b") }
        child.register(Widget.self, tag: "c", lifetime: .unique) { _ in Widget("child c") }
        for _ in 0..<2 {
            #expect(try child.resolveAll(Widget.self).map(\.name) == ["child b", "child c", "app a"])
        }
        #expect(try app.resolveAll(Widget.self).map(\.name) == ["app a", "app b"])
    }

    // MARK: Removal and handles

    @Test func removingARecordWhileItsFirstBuildRunsOnAnotherThread() throws {
        let c = Container(name: "c")
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let handle = c.register(Widget.self, lifetime: .unique) { _ in
            started.signal()
            _ = proceed.wait(timeout: .now() + 5)
            return Widget("built")
        }
        let pending = StartedThread { try c.resolve(Widget.self).name }
        #expect(started.wait(timeout: .now() + 5) == .success)
        c.remove(handle)
        #expect(try c.resolveIfRegistered(Widget.self) == nil)
        proceed.signal()
        #expect(try pending.value(timeout: 10) == "built")
        #expect(try c.resolveIfRegistered(Widget.self) == nil)
        // The handle is inert now.
        let runs = Counter()
        handle.onResolved { _, _ in runs.increment() }
        c.register(Widget.self, lifetime: .unique) { _ in Widget("new") }
        #expect(try c.resolve(Widget.self).name == "new")
        #expect(runs.value == 0)
    }

    @Test func removeAllWhileARecordsFirstBuildRunsThenItAsksForAnotherRecord() throws {
        let c = Container(name: "c")
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        c.register(Leaf.self, lifetime: .unique) { _ in Leaf() }
        let pending = Self.firstBuildOnAThread(
            of: Top.self, in: c, askingFor: Leaf.self, started: started, proceed: proceed, Top.init)
        #expect(started.wait(timeout: .now() + 5) == .success)
        c.removeAll()
        proceed.signal()
        #expect(try pending.value(timeout: 10) == ["Top", "Leaf", "notRegistered", "Leaf"])
        #expect(try c.resolveIfRegistered(Top.self) == nil)
    }

    @Test(arguments: [0, 1, 2])
    func handlesOfARecordOutlivingTheirContainerAreInert(resolvesBefore: Int) throws {
        let other = Container(name: "other")
        other.register(Widget.self, lifetime: .unique) { _ in Widget("other") }
        var handle: Registration<Widget>?
        weak var gone: Container?
        do {
            let c = Container(name: "c")
            gone = c
            handle = c.register(Widget.self, lifetime: .unique) { _ in Widget("c") }
            for _ in 0..<resolvesBefore { _ = try c.resolve(Widget.self) }
        }
        #expect(gone == nil)
        let h = try #require(handle)
        h.onResolved { _, _ in }.implements(Payload.self)
        other.remove(h)
        #expect(h.key.typeName == "Widget")
        #expect(h.lifetime == .unique)
        #expect(try other.resolve(Widget.self).name == "other")
        #expect(try other.resolveIfRegistered(Payload.self) == nil)
    }

    /// A handle of one container's record passed to another container's `remove`: nothing
    /// happens to either.
    @Test func removingAnotherContainersRecordThroughItsHandleRemovesNothing() throws {
        let x = Container(name: "x")
        let y = Container(name: "y")
        let hx = x.register(Widget.self, lifetime: .unique) { _ in Widget("x") }
        y.register(Widget.self, lifetime: .unique) { _ in Widget("y") }
        y.remove(hx)
        #expect(try x.resolve(Widget.self).name == "x")
        #expect(try y.resolve(Widget.self).name == "y")
    }

    @Test(arguments: [Lifetime.unique, .graph, .singleton])
    func theHandleOfARecordReplacedByAnotherLifetimeIsInert(replacement: Lifetime) throws {
        let c = Container(name: "c")
        let old = c.register(Widget.self, lifetime: .unique) { _ in Widget("old") }
        _ = try c.resolve(Widget.self)
        c.register(Widget.self, lifetime: replacement) { _ in Widget("new") }
        let runs = Counter()
        old.onResolved { _, _ in runs.increment() }.implements(Payload.self)
        c.remove(old)
        #expect(try c.resolve(Widget.self).name == "new")
        #expect(try c.resolve(Widget.self).name == "new")
        #expect(try c.resolveIfRegistered(Payload.self) == nil)
        #expect(runs.value == 0)
    }

    // MARK: Factories that change their own container

    @Test func aRecordsFactoryReplacingItsOwnKeyOnItsFirstRun() throws {
        let c = Container(name: "c")
        let old = c.register(Widget.self, lifetime: .unique) { [unowned c] _ in
            c.register(Widget.self, lifetime: .unique) { _ in Widget("new") }
            return Widget("old")
        }
        #expect(try c.resolve(Widget.self).name == "old")
        #expect(try c.resolve(Widget.self).name == "new")
        #expect(try c.resolve(Widget.self).name == "new")
        c.remove(old)
        #expect(try c.resolve(Widget.self).name == "new")
    }

    @Test func aRecordsFactoryRegisteringAndResolvingANewRecord() throws {
        let c = Container(name: "c")
        let child = c.makeChild(name: "child")
        c.register(Top.self, lifetime: .unique) { [unowned c] r in
            if try r.resolveIfRegistered(Leaf.self) == nil {
                c.register(Leaf.self, lifetime: .unique) { _ in Leaf() }
            }
            _ = try r.resolve(Leaf.self)
            return Top()
        }
        _ = try child.resolve(Top.self)
        _ = try c.resolve(Top.self)
        _ = try child.resolve(Top.self)
        #expect(try c.resolveAll(Leaf.self).count == 1)
    }

    @Test func aRecordsFactoryRemovingItselfThroughItsHandle() throws {
        let c = Container(name: "c")
        let (_, release) = c.registerRemovingItself(Widget.self, lifetime: .unique) { Widget("last") }
        defer { release() }
        #expect(try c.resolve(Widget.self).name == "last")
        let e = resolutionError { _ = try c.resolve(Widget.self) }
        #expect(e?.kind.caseName == "notRegistered")
        #expect(e?.pathDescriptions == ["Widget"])
    }

    enum Form: String, CaseIterable, Sendable { case record, entryFromRecord, graph }

    /// A factory that adds an `onResolved` block to its own registration while it builds:
    /// the block exists when the outermost factory returns, so the contract runs it for the
    /// new instance. The three forms must agree.
    @Test(arguments: Form.allCases)
    func aBlockAddedByTheFactoryItselfRunsForThatInstanceInEveryForm(form: Form) throws {
        let c = Container(name: "c")
        let runs = Counter()
        let added = Guarded(false)
        let handle = Guarded<Registration<Widget>?>(nil)
        defer { handle.withLock { $0 = nil } }  // the handle holds the factory that captures it
        let registration = c.register(Widget.self, lifetime: form == .graph ? .graph : .unique) { _ in
            let first = added.withLock { added -> Bool in
                defer { added = true }
                return !added
            }
            if first, let h = handle.current { h.onResolved { _, _ in runs.increment() } }
            return Widget()
        }
        handle.withLock { $0 = registration }
        if form == .entryFromRecord { _ = c.description }
        _ = try c.resolve(Widget.self)
        #expect(runs.value == 1, "\(form): the block added during the build ran \(runs.value) times for it")
        _ = try c.resolve(Widget.self)
        #expect(runs.value == 2)
    }

    /// The same from another thread: a block added through the handle while the first build
    /// waits inside the factory (the handle makes the record an entry then). The block exists
    /// when that factory returns, and the forms must agree.
    @Test(arguments: Form.allCases)
    func aBlockAddedWhileTheFirstBuildRunsOnAnotherThreadRunsForThatInstance(form: Form) throws {
        let c = Container(name: "c")
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let firstBuild = Guarded(true)
        let registration = c.register(Widget.self, lifetime: form == .graph ? .graph : .unique) { _ in
            let isFirst = firstBuild.withLock { first -> Bool in
                defer { first = false }
                return first
            }
            if isFirst {
                started.signal()
                _ = proceed.wait(timeout: .now() + 5)
            }
            return Widget()
        }
        if form == .entryFromRecord { _ = c.description }
        let runs = Counter()
        let pending = StartedThread { () -> Int in
            _ = try c.resolve(Widget.self)
            return runs.value
        }
        #expect(started.wait(timeout: .now() + 5) == .success)
        registration.onResolved { _, _ in runs.increment() }
        proceed.signal()
        #expect(try pending.value(timeout: 10) == 1, "\(form): the block added during the build did not run for it")
    }

    /// Remove racing `onResolved`/`implements` through the handle of a fresh record: whatever
    /// the interleaving, the registration and its forwarded keys are gone afterwards.
    @Test(arguments: [Lifetime.unique, .graph])
    func removeRacingMaterializationThroughTheHandle(lifetime: Lifetime) async throws {
        for round in 0..<500 {
            let c = Container(name: "round \(round)")
            let handle = c.register(Gear.self, lifetime: lifetime) { _ in Gear() }
            let barrier = Reliability.Barrier(count: 3)
            let finished = await runOnThreads(3, timeout: 20) { thread in
                barrier.arriveAndWait(timeout: 10)
                switch thread {
                case 0: handle.implements((any Named).self)
                case 1: handle.onResolved { _, _ in }
                default: c.remove(handle)
                }
            }
            #expect(finished)
            #expect(try c.resolveIfRegistered(Gear.self) == nil)
            // A forward added after the removal adds nothing; one added before went with it.
            #expect(try c.resolveIfRegistered((any Named).self) == nil, "\(lifetime) round \(round)")
        }
    }

    // MARK: Lifetimes around records

    @Test func anEagerSingletonAndPerContainerInstancesThatNeedRecords() throws {
        let app = Container(name: "app")
        let leafRuns = Counter()
        app.register(Leaf.self, lifetime: .unique, counting: leafRuns) { Leaf() }
        app.register(Mid.self, lifetime: .eagerSingleton, needing: Leaf.self) { Mid() }
        app.register(Top.self, lifetime: .perContainer, needing: Leaf.self) { Top() }
        try app.bootstrap()
        #expect(leafRuns.value == 1)
        let one = app.makeChild(name: "one")
        let two = app.makeChild(name: "two")
        let t1 = try one.resolve(Top.self)
        #expect(try one.resolve(Top.self) === t1)
        #expect(try two.resolve(Top.self) !== t1)
        #expect(leafRuns.value == 3)
        _ = try app.resolve(Mid.self)
        #expect(leafRuns.value == 3)
    }

    /// A child that memoized an ancestor's entry (made from a record) must see a record
    /// registered later in between, a replacement of that entry, and a removal.
    @Test func memoizedLookupsFollowRecordsRegisteredReplacedAndRemovedAlongTheWalk() throws {
        let root = Container(name: "root")
        root.register(Widget.self, lifetime: .unique) { _ in Widget("root") }
        let middle = root.makeChild(name: "middle")
        middle.register(Payload.self, lifetime: .unique) { _ in Payload() }
        let leaf = middle.makeChild(name: "leaf")
        leaf.register(S.self, lifetime: .unique) { _ in S() }
        let partner = Container(name: "partner")
        partner.collaborate(with: leaf)
        partner.register(G.self, lifetime: .unique) { _ in G() }
        for _ in 0..<3 {
            #expect(try leaf.resolve(Widget.self).name == "root")
            #expect(try partner.resolve(Widget.self).name == "root")
        }
        middle.register(Widget.self, lifetime: .unique) { _ in Widget("middle") }
        for _ in 0..<3 {
            #expect(try leaf.resolve(Widget.self).name == "middle")
            #expect(try partner.resolve(Widget.self).name == "middle")
        }
        middle.register(Widget.self, lifetime: .unique) { _ in Widget("middle 2") }
        for _ in 0..<3 {
            #expect(try leaf.resolve(Widget.self).name == "middle 2")
            #expect(try partner.resolve(Widget.self).name == "middle 2")
        }
        middle.removeAll()
        for _ in 0..<3 {
            #expect(try leaf.resolve(Widget.self).name == "root")
            #expect(try partner.resolve(Widget.self).name == "root")
        }
        root.removeAll()
        #expect(try leaf.resolveIfRegistered(Widget.self) == nil)
        #expect(try partner.resolveIfRegistered(Widget.self) == nil)
    }

    // MARK: Errors

    @Test func aThrowingRecordUnderAGraphAndASingletonReportsTheDeepestCauseOnce() throws {
        let c = Container(name: "c")
        let midRuns = Counter()
        c.register(Top.self, lifetime: .graph, needing: Mid.self) { Top() }
        c.register(Mid.self, lifetime: .singleton, needing: Leaf.self, tagged: "l", counting: midRuns) { Mid() }
        c.register(Leaf.self, tag: "l", lifetime: .unique) { _ in throw Boom("leaf") }
        for _ in 0..<2 {
            let e = resolutionError { _ = try c.resolve(Top.self) }
            #expect(e?.kind.caseName == "factoryFailed")
            #expect(e?.kind.underlyingError as? Boom == Boom("leaf"))
            #expect(e?.key.typeName == "Leaf" && e?.key.tag == "l")
            #expect(e?.pathDescriptions == ["Top", "Mid", "Leaf[tag: \"l\"]"])
        }
        #expect(midRuns.value == 2, "the failed singleton was not cached")
        c.register(Leaf.self, tag: "l", lifetime: .unique) { _ in Leaf() }
        let m1 = try c.resolve(Mid.self)
        _ = try c.resolve(Top.self)
        #expect(try c.resolve(Mid.self) === m1)
        #expect(midRuns.value == 3)
    }

    @Test func aRecordThatRethrowsAnotherResolvesErrorIsNotWrapped() throws {
        let c = Container(name: "c")
        c.register(Top.self, lifetime: .unique, needing: Mid.self) { Top() }
        c.register(Mid.self, lifetime: .unique, needing: Leaf.self, tagged: "missing") { Mid() }
        c.register(Leaf.self, tag: "present", lifetime: .unique) { _ in Leaf() }
        for _ in 0..<2 {
            let e = resolutionError { _ = try c.resolve(Top.self) }
            #expect(e?.kind.caseName == "notRegistered")
            #expect(e?.pathDescriptions == ["Top", "Mid", "Leaf[tag: \"missing\"]"])
            #expect(e?.description.contains("Leaf[tag: \"present\"]") == true)
        }
    }

    @Test func suggestionsNameTaggedRecordsInTheWalkAndOutsideItWithoutMakingEntries() throws {
        let app = Container(name: "app")
        app.register(Widget.self, tag: "parent", lifetime: .unique) { _ in Widget() }
        let feature = app.makeChild(name: "feature")
        feature.register(Payload.self, lifetime: .unique) { _ in Payload() }
        let sibling = app.makeChild(name: "sibling")
        sibling.register(Widget.self, tag: "sibling", lifetime: .unique) { _ in Widget() }
        let e = resolutionError { _ = try feature.resolve(Widget.self) }
        #expect(e?.kind.caseName == "notRegistered")
        #expect(e?.searched == ["feature", "app"])
        let text = e?.description ?? ""
        #expect(text.contains("'app' registers Widget[tag: \"parent\"]"))
        #expect(text.contains("'sibling' registers Widget[tag: \"sibling\"]"))
        // The same after the records became entries.
        _ = app.description
        let again = resolutionError { _ = try feature.resolve(Widget.self) }
        #expect(again?.description.contains("'app' registers Widget[tag: \"parent\"]") == true)
        #expect(again?.description.contains("'sibling' registers Widget[tag: \"sibling\"]") == true)
    }

    @Test func aRecordAskedForWithArgumentsIsAnArgumentMismatch() throws {
        let c = Container(name: "c")
        c.register(Widget.self, lifetime: .unique) { _ in Widget() }
        let e = resolutionError { _ = try c.resolve(Widget.self, tag: nil, arguments: 1) }
        #expect(e?.kind.caseName == "argumentMismatch")
        #expect(e?.key.argumentTypeNames == ["Int"])
        #expect(try c.resolve(Widget.self).name == "widget")
    }

    @Test func validationAndGraphOfRecordsInACycle() throws {
        let c = Container(name: "c")
        c.register(A.self, lifetime: .unique, needing: B.self) { A() }
        c.register(B.self, lifetime: .unique) { r in B(a: try r.resolve(A.self)) }
        let report = c.validate()
        #expect(!report.isValid)
        #expect(report.issues.contains { $0.severity == .error && $0.key.typeName == "A" })
        let graph = c.dependencyGraph()
        #expect(graph.nodes.allSatisfy { $0.lifetime == .unique && $0.container == "c" })
        #expect(graph.nodes.count == 2)
        #expect(resolutionError { _ = try c.resolve(A.self) }?.pathDescriptions == ["A", "B", "A"])
    }

    // MARK: Type shapes (the factory's two words are read by another specialization)

    @Test func recordsOfEveryTypeShapeResolveTheSameBeforeAndAfterBecomingEntries() throws {
        let c = Container(name: "c")
        let child = c.makeChild(name: "child")
        child.register(Payload.self, lifetime: .unique) { _ in Payload() }
        let big = Big()
        c.register(Int.self, lifetime: .unique) { _ in 42 }
        c.register(String.self, lifetime: .unique) { _ in "text" }
        c.register(Big.self, lifetime: .unique) { _ in big }
        c.register((Int, String, Double).self, lifetime: .unique) { _ in (7, "seven", 7.5) }
        c.register((@Sendable (Int) -> Int).self, lifetime: .unique) { _ in { $0 * 3 } }
        c.register((any Named).self, lifetime: .unique) { _ in Gear("existential") }
        c.register(Optional<Int>.self, lifetime: .unique) { _ in 9 }
        c.register(Shape.self, lifetime: .unique) { _ in .named("n", 2) }
        c.register(Any.self, lifetime: .unique) { _ in "any" as Any }
        for round in 0..<3 {
            let from = round == 2 ? child : c
            #expect(try from.resolve(Int.self) == 42, "round \(round)")
            #expect(try from.resolve(String.self) == "text")
            #expect(try from.resolve(Big.self) == big)
            let tuple = try from.resolve((Int, String, Double).self)
            #expect(tuple.0 == 7 && tuple.1 == "seven" && tuple.2 == 7.5)
            #expect(try from.resolve((@Sendable (Int) -> Int).self)(5) == 15)
            #expect(try from.resolve((any Named).self).name == "existential")
            #expect(try from.resolve(Optional<Int>.self) == 9)
            #expect(try from.resolve(Shape.self) == .named("n", 2))
            #expect(try from.resolve(Any.self) as? String == "any")
        }
        #expect(try c.resolveAll(Big.self) == [big])
        #expect(try c.resolveAll(Shape.self) == [.named("n", 2)])
        #expect(try c.resolve(Optional<Big>.self) == big)
        #expect(try c.resolve(Optional<Int?>.self) == .some(.some(9)))
    }

    private func registerGenerically<T: Sendable>(_ value: T, in c: Container) {
        c.register(T.self, lifetime: .unique) { _ in value }
    }

    private func resolveGenerically<T>(_ type: T.Type, from c: Container) throws -> T { try c.resolve(T.self) }

    @Test func aRecordRegisteredInGenericCodeResolvesInConcreteCodeAndBack() throws {
        let c = Container(name: "c")
        let big = Big()
        registerGenerically(big, in: c)
        registerGenerically(Shape.circle(1.5), in: c)
        registerGenerically("generic", in: c)
        c.register(Widget.self, lifetime: .unique) { _ in Widget("concrete") }
        #expect(try c.resolve(Big.self) == big)
        #expect(try resolveGenerically(Shape.self, from: c) == .circle(1.5))
        #expect(try c.resolve(String.self) == "generic")
        #expect(try resolveGenerically(Widget.self, from: c).name == "concrete")
        for _ in 0..<2 {
            #expect(try resolveGenerically(Big.self, from: c) == big)
            #expect(try c.resolve(Shape.self) == .circle(1.5))
            #expect(try resolveGenerically(String.self, from: c) == "generic")
            #expect(try c.resolve(Widget.self).name == "concrete")
        }
    }

    // MARK: Concurrency

    @Test func manyThreadsMakingTheFirstResolvesOfOneRecordAtOnce() async throws {
        for round in 0..<30 {
            let c = Container(name: "round \(round)")
            let runs = Counter()
            c.register(Widget.self, tag: "t", lifetime: .unique, counting: runs) { Widget("t") }
            let child = c.makeChild(name: "child")
            let barrier = Reliability.Barrier(count: 6)
            let instances = Guarded<[Widget]>([])
            let failures = Counter()
            let finished = await runOnThreads(6, timeout: 20) { thread in
                barrier.arriveAndWait(timeout: 10)
                let from = thread % 2 == 0 ? c : child
                for _ in 0..<2 {
                    if let widget = try? from.resolve(Widget.self, tag: "t"), widget.name == "t" {
                        instances.withLock { $0.append(widget) }
                    } else {
                        failures.increment()
                    }
                }
            }
            #expect(finished)
            #expect(failures.value == 0)
            #expect(runs.value == 12)
            #expect(Set(instances.current.map(ObjectIdentifier.init)).count == 12, "every resolve a new instance")
        }
    }

    @Test func manyThreadsAddingBlocksThroughOneRecordsHandleWhileResolving() async throws {
        for round in 0..<30 {
            let c = Container(name: "round \(round)")
            let handle = c.register(Widget.self, lifetime: .unique) { _ in Widget() }
            let blockRuns = Counter()
            let barrier = Reliability.Barrier(count: 5)
            let failures = Counter()
            let finished = await runOnThreads(5, timeout: 20) { thread in
                barrier.arriveAndWait(timeout: 10)
                if thread == 4 {
                    for _ in 0..<4 where (try? c.resolve(Widget.self)) == nil { failures.increment() }
                } else {
                    handle.onResolved { _, _ in blockRuns.increment() }
                    handle.implements(Payload.self, tag: ServiceTag("t\(thread)"))
                }
            }
            #expect(finished)
            #expect(failures.value == 0)
            let before = blockRuns.value
            _ = try c.resolve(Widget.self)
            #expect(blockRuns.value - before == 4, "every block added through the handle runs once")
            for thread in 0..<4 {
                let e = resolutionError { _ = try c.resolve(Payload.self, tag: ServiceTag("t\(thread)")) }
                #expect(e?.kind.caseName == "typeMismatch")
            }
        }
    }

    @Test func twoThreadsStartingAtBothEndsOfARecordCycleEachGetTheirPath() async throws {
        for round in 0..<20 {
            let c = Container(name: "round \(round)")
            let meet = Rendezvous()
            let arrived = Guarded((false, false))
            c.register(A.self, lifetime: .unique, needing: B.self) { A() }
            c.register(B.self, lifetime: .unique) { r in B(a: try r.resolve(A.self)) }
            let paths = Guarded<[Int: [String]]>([:])
            let finished = await runOnThreads(2, timeout: 20) { thread in
                let ok = thread == 0 ? meet.arriveFirst() : meet.arriveSecond()
                arrived.withLock { if thread == 0 { $0.0 = ok } else { $0.1 = ok } }
                do {
                    if thread == 0 { _ = try c.resolve(A.self) } else { _ = try c.resolve(B.self) }
                    paths.withLock { $0[thread] = ["no error"] }
                } catch let error as ResolutionError {
                    paths.withLock { $0[thread] = error.pathDescriptions }
                } catch {
                    paths.withLock { $0[thread] = ["\(error)"] }
                }
            }
            #expect(finished)
            #expect(paths.current[0] == ["A", "B", "A"])
            #expect(paths.current[1] == ["B", "A", "B"])
        }
    }

    /// A record and a singleton in a constructor cycle, started at both ends on two threads at
    /// once: both get the cycle error with their own path, and neither waits forever.
    @Test func aRecordSingletonCycleStartedAtBothEndsOnTwoThreads() async throws {
        for round in 0..<20 {
            let c = Container(name: "round \(round)")
            c.register(A.self, lifetime: .unique, needing: S.self) { A() }
            c.register(S.self, lifetime: .singleton, needing: A.self) { S() }
            let barrier = Reliability.Barrier(count: 2)
            let outcomes = Guarded<[Int: [String]]>([:])
            let finished = await runOnThreads(2, timeout: 20) { thread in
                barrier.arriveAndWait(timeout: 10)
                do {
                    if thread == 0 { _ = try c.resolve(A.self) } else { _ = try c.resolve(S.self) }
                    outcomes.withLock { $0[thread] = ["no error"] }
                } catch let error as ResolutionError {
                    outcomes.withLock { $0[thread] = [error.kind.caseName] + error.pathDescriptions }
                } catch {
                    outcomes.withLock { $0[thread] = ["\(error)"] }
                }
            }
            #expect(finished)
            #expect(outcomes.current[0] == ["circularDependency", "A", "S", "A"], "round \(round)")
            #expect(outcomes.current[1] == ["circularDependency", "S", "A", "S"], "round \(round)")
        }
    }

    @Test func resolvesRacingRemoveAllAndReRegistrationNeverSeeAWrongInstance() async throws {
        let c = Container(name: "c")
        let child = c.makeChild(name: "child")
        child.register(Payload.self, lifetime: .unique) { _ in Payload() }
        let tags = (0..<8).map { ServiceTag("w\($0)") }
        @Sendable func registerAll() {
            for tag in tags { c.register(Widget.self, tag: tag, lifetime: .unique) { _ in Widget(tag.name) } }
        }
        registerAll()
        let wrong = Counter()
        let stop = Guarded(false)
        let finished = await runOnThreads(4, timeout: 30) { thread in
            if thread == 0 {
                for _ in 0..<200 {
                    c.removeAll()
                    registerAll()
                }
                stop.withLock { $0 = true }
                return
            }
            var iterations = 0
            while !stop.current, iterations < 20_000 {
                iterations += 1
                let tag = tags[iterations % tags.count]
                let from = thread == 1 ? child : c
                do {
                    if let widget = try from.resolveIfRegistered(Widget.self, tag: tag), widget.name != tag.name {
                        wrong.increment()
                    }
                } catch {
                    wrong.increment()
                }
            }
        }
        #expect(finished)
        #expect(wrong.value == 0)
        for tag in tags { #expect(try child.resolve(Widget.self, tag: tag).name == tag.name) }
    }
}
