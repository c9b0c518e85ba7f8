import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// What a collaborator that is freed (or whose registration is removed) leaves behind, seen from
/// the container that resolved through it:
///
/// - a `perContainer` instance cached for the freed collaborator's registration never answers for
///   the registration that comes next (not even one of another type), and does not stay alive in
///   the container that resolved it;
/// - `resolveIfRegistered` gives a value or `nil`, never `.notRegistered`, while another thread
///   frees the collaborator that holds the registration.
///
/// Regression tests: each of these once failed (CHANGELOG.md). The override scope entered during a
/// resolve is in `Tests/ScopeGraphTestingTests/Overrides/NestedOverrideScopeTests.swift`, which
/// needs ScopeGraphTesting.
@Suite struct FreedCollaboratorTests {
    /// A login session: the `perContainer` service a session container registers.
    final class Session: Sendable {
        let login: Int
        init(_ login: Int) { self.login = login }
    }

    /// Another class, which later session containers register instead, so that an instance
    /// cached for a freed registration shows up as a type confusion.
    final class Basket: Sendable {
        let round: Int
        init(_ round: Int) { self.round = round }
    }

    /// What `resolveIfRegistered` looks for in the stress test.
    final class Marker: Sendable {}

    // MARK: - No instance of a freed collaborator answers for another registration

    @Test func eachNewSessionCollaboratorGivesItsOwnPerContainerSession() throws {
        let main = Container(name: "main")
        for login in 0..<3 {
            let session = Container(name: "session")
            session.register(Session.self, lifetime: .perContainer) { _ in Session(login) }
            main.collaborate(with: session)
            #expect(try main.resolve(Session.self).login == login)
        }
    }

    @Test func aRegistrationOfAnotherTypeNeverAnswersWithTheInstanceOfAFreedCollaborator() throws {
        // Freed registrations' memory is reused: 200 rounds, with garbage of varying size in
        // between, alternate a `Session` and a `Basket` collaborator. The result is only compared
        // by identity with what the factory recorded: a mistyped object is never touched.
        let main = Container(name: "main")
        let made = Guarded<AnyObject?>(nil)
        var everMade: [AnyObject] = []  // keeps identities unique for the diagnostics
        var names: [ObjectIdentifier: String] = [:]
        var failures: [String] = []
        for round in 0..<200 {
            made.withLock { $0 = nil }
            let outcome = Result { () throws -> (got: ObjectIdentifier, wanted: String) in
                let session = Container(name: "session \(round)")
                /// Registers `T` (made by `make`, recorded in `made`) in a new collaborator
                /// `session` and resolves it from `main`.
                func resolveThroughANewCollaborator<T: AnyObject & Sendable>(
                    _ make: @escaping @Sendable (Int) -> T
                ) throws -> (got: ObjectIdentifier, wanted: String) {
                    session.register(T.self, lifetime: .perContainer) { _ in
                        let instance = make(round)
                        made.withLock { $0 = instance }
                        return instance
                    }
                    main.collaborate(with: session)
                    return (ObjectIdentifier(try main.resolve(T.self)), "\(T.self)")
                }
                return round.isMultiple(of: 2)
                    ? try resolveThroughANewCollaborator(Session.init) : try resolveThroughANewCollaborator(Basket.init)
            }
            guard case .success(let (got, wanted)) = outcome else {
                failures.append("round \(round): \(outcome)")
                continue
            }
            if let instance = made.current {
                everMade.append(instance)
                names[ObjectIdentifier(instance)] = "the \(wanted) built in round \(round)"
            }
            if got != made.current.map(ObjectIdentifier.init) {
                failures.append(
                    "round \(round): resolve(\(wanted).self) gave \(names[got] ?? "an object the factories never built")"
                )
            }
            Self.makeGarbage(count: round % 5)
        }
        withExtendedLifetime(everMade) {}
        for failure in failures.prefix(5) { Issue.record(Comment(rawValue: failure)) }
        #expect(failures.count == 0, "\(failures.count) of 200 rounds answered with another round's instance")
    }

    @Test func theFreedCollaboratorsPerContainerInstanceDoesNotStayAliveInTheContainerThatResolvedIt() throws {
        let main = Container(name: "main")
        weak var instance: Session?
        do {
            let session = Container(name: "session")
            session.register(Session.self, lifetime: .perContainer) { _ in Session(1) }
            main.collaborate(with: session)
            instance = try main.resolve(Session.self)
            #expect(instance != nil, "main holds its perContainer instance while the session lives")
        }
        #expect(
            instance == nil, "the session container and its registration are gone, but main still holds the instance")
    }

    /// Resolves `Session` from `main` through a bridge container that collaborates with
    /// `owner` and is freed on return; returns a watch on the instance.
    private static func sessionThroughAFreedBridge(from main: Container, to owner: Container) throws -> WeakProbe<
        Session
    > {
        let bridge = Container(name: "bridge")
        bridge.collaborate(with: owner)
        main.collaborate(with: bridge)
        return WeakProbe(try main.resolve(Session.self))
    }

    @Test func aPerContainerInstanceResolvedThroughAFreedBridgeIsReleasedByRemoveAndNotServedAgain() throws {
        let main = Container(name: "main")
        let owner = Container(name: "owner")
        let registration = owner.register(Session.self, lifetime: .perContainer) { _ in Session(1) }
        let first = try Self.sessionThroughAFreedBridge(from: main, to: owner)
        #expect(first.object?.login == 1)
        owner.remove(registration)
        #expect(first.isFreed, "remove(_:) must release the instances cached for the registration, main's included")
        owner.register(Session.self, lifetime: .perContainer) { _ in Session(2) }
        main.collaborate(with: owner)
        let second = try main.resolve(Session.self)
        #expect(second.login == 2, "the new registration's factory must build main's instance")
        #expect(first.isFreed)
    }

    @Test func anotherTypeRegisteredAfterRemovingABridgedRegistrationGetsItsOwnInstance() throws {
        var failures: [String] = []
        var released = 0
        for round in 0..<100 {
            let main = Container(name: "main")
            let owner = Container(name: "owner")
            let registration = owner.register(Session.self, lifetime: .perContainer) { _ in Session(round) }
            let first = try Self.sessionThroughAFreedBridge(from: main, to: owner)
            owner.remove(registration)
            if first.isFreed { released += 1 }
            Self.makeGarbage(count: round % 3)
            let made = Guarded<Basket?>(nil)
            owner.register(Basket.self, lifetime: .perContainer) { _ in
                let basket = Basket(round)
                made.withLock { $0 = basket }
                return basket
            }
            main.collaborate(with: owner)
            let got = ObjectIdentifier(try main.resolve(Basket.self))
            guard let basket = made.current else {
                failures.append("round \(round): resolve(Basket.self) answered without running the Basket factory")
                continue
            }
            if got != ObjectIdentifier(basket) {
                failures.append("round \(round): resolve(Basket.self) gave an object other than the Basket built")
            }
        }
        for failure in failures.prefix(5) { Issue.record(Comment(rawValue: failure)) }
        #expect(failures.count == 0, "\(failures.count) of 100 rounds answered with a stale instance")
        #expect(released == 100, "remove(_:) released the old instance in only \(released) of 100 rounds")
    }

    /// Short-lived containers, registrations and instances, so that the allocator reuses the
    /// addresses of what the previous round freed in varying patterns.
    static func makeGarbage(count: Int) {
        for index in 0..<count {
            let container = Container(name: "garbage")
            container.register(Int.self, lifetime: .perContainer) { _ in index }
            container.register(Marker.self, lifetime: .singleton) { _ in Marker() }
            _ = try? container.resolve(Int.self)
            _ = try? container.resolve(Marker.self)
        }
    }

    // MARK: - resolveIfRegistered while a collaborator is freed

    @Test(arguments: [Lifetime.unique, .graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer])
    func resolveIfRegisteredGivesAValueOrNilWhileTheCollaboratorHoldingTheRegistrationIsFreed(
        lifetime: Lifetime
    ) async {
        let main = Container(name: "main")
        let stop = Guarded(false)
        let errors = Guarded<[String]>([])
        let errorCount = Counter()
        let values = Counter()
        let nils = Counter()
        let rounds = Counter()
        let resolverCount = 2
        let barrier = Reliability.Barrier(count: resolverCount + 1)
        let deadline = Date(timeIntervalSinceNow: 1)
        let finished = await runOnThreads(resolverCount + 1, timeout: 60) { index in
            barrier.arriveAndWait()
            if index == 0 {
                // The churner: a collaborator holding the registration is created, linked, kept
                // for a moment of varying length, and freed, over and over.
                var random = Reliability.SplitMix64(seed: 42)
                while Date() < deadline {
                    let collaborator = Container(name: "collaborator")
                    collaborator.register(Marker.self, lifetime: lifetime) { _ in Marker() }
                    main.collaborate(with: collaborator)
                    for _ in 0..<random.below(200) { _ = collaborator.name.count }
                    rounds.increment()
                }
                stop.withLock { $0 = true }
            } else {
                while !stop.current {
                    do {
                        if try main.resolveIfRegistered(Marker.self) != nil {
                            values.increment()
                        } else {
                            nils.increment()
                        }
                    } catch {
                        errorCount.increment()
                        errors.withLock { if $0.count < 3 { $0.append("\(error)") } }
                    }
                }
            }
        }
        guard finished else { return }  // runOnThreads recorded the hang
        print(
            "FreedCollaboratorTests (\(lifetime)): \(rounds.value) collaborators, \(values.value) values, \(nils.value) nils,"
                + " \(errorCount.value) errors")
        #expect(rounds.value > 0 && values.value + nils.value + errorCount.value > 0, "nothing ran")
        for error in errors.current { Issue.record(Comment(rawValue: "resolveIfRegistered threw: \(error)")) }
        #expect(errorCount.value == 0, "resolveIfRegistered threw \(errorCount.value) times instead of giving nil")
    }
}
