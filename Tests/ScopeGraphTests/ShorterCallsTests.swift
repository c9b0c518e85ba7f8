import Foundation
import ScopeGraph
import Testing

private protocol Logging: AnyObject, Sendable {}
private protocol Tracing: AnyObject, Sendable {}
private protocol Metrics: AnyObject, Sendable {}
private protocol Unrelated: AnyObject, Sendable {}

/// One object that plays several roles.
private final class Telemetry: Logging, Tracing, Metrics {}

/// A service built from runtime arguments.
private final class Session: Sendable {
    let userID: Int
    let token: String
    let label: String
    init(userID: Int, token: String, label: String = "untagged") {
        self.userID = userID
        self.token = token
        self.label = label
    }
}

/// A service whose factory resolves a `Session` with arguments through its resolver.
private final class Dashboard: Sendable {
    let session: Session
    init(session: Session) { self.session = session }
}

/// A `Resolving` of your own (a test double): records the tags it was asked for.
private struct RecordingResolver: Resolving {
    let tags = Guarded<[ServiceTag?]>([])

    func resolve<T>(_ type: T.Type, tag: ServiceTag?) throws -> T {
        throw ResolutionError(kind: .notRegistered, key: ServiceKey(typeName: "\(T.self)"), path: [])
    }

    func resolve<T, each A>(_ type: T.Type, tag: ServiceTag?, arguments: repeat each A) throws -> T {
        tags.withLock { $0.append(tag) }
        var values: [Any] = []
        for argument in repeat each arguments { values.append(argument) }
        // Checked: the tests ask this double for `[Any]` only.
        return values as! T
    }
}

/// Registers `String` under the tag `name`, in order.
private struct TagModule: ContainerModule {
    let name: String
    func register(in container: Container) {
        container.register(String.self, tag: "last") { _ in name }
        container.register(String.self, tag: ServiceTag(name)) { _ in name }
    }
}

/// `resolve(_:arguments:)`, `resolveAsync(_:arguments:)`, `implements` with several types,
/// `Container(name:modules:)` with an array, and `ResolutionError.Kind` equality.
@Suite struct ShorterCallsTests {
    // MARK: resolve(_:arguments:) without a tag

    @Test func resolveWithArgumentsAndNoTagResolvesTheUntaggedRegistration() throws {
        let container = Container(name: "app")
        container.register(Session.self) { (_, userID: Int, token: String) in Session(userID: userID, token: token) }
        container.register(Session.self, tag: "admin") { (_, userID: Int, token: String) in
            Session(userID: userID, token: token, label: "admin")
        }

        let session = try container.resolve(Session.self, arguments: 42, "token")
        let inferred: Session = try container.resolve(arguments: 7, "other")

        #expect(session.userID == 42 && session.token == "token" && session.label == "untagged")
        #expect(inferred.userID == 7 && inferred.label == "untagged")
    }

    @Test func theLongFormsStillCompileAndMeanTheSame() throws {
        let container = Container(name: "app")
        container.register(Session.self) { (_, userID: Int) in Session(userID: userID, token: "") }
        container.register(Session.self, tag: "t") { _ in Session(userID: 1, token: "t", label: "t") }
        container.register(Session.self) { _ in Session(userID: 0, token: "plain") }

        let long = try container.resolve(Session.self, tag: nil, arguments: 5)
        let tagged = try container.resolve(Session.self, tag: "t")
        let plain = try container.resolve(Session.self)
        let inferred: Session = try container.resolve()

        #expect(long.userID == 5)
        #expect(tagged.label == "t")
        #expect(plain.token == "plain" && inferred.token == "plain")
    }

    @Test func argumentsOfOtherTypesThrowArgumentMismatch() throws {
        let container = Container(name: "app")
        container.register(Session.self) { (_, userID: Int) in Session(userID: userID, token: "") }

        let error = try #require(throws: ResolutionError.self) {
            try container.resolve(Session.self, arguments: "42")
        }

        #expect(error.kind == .argumentMismatch)
    }

    @Test func aFactorysResolverResolvesWithArgumentsWithoutATag() throws {
        let container = Container(name: "app")
        container.register(Session.self) { (_, userID: Int, token: String) in Session(userID: userID, token: token) }
        container.register(Dashboard.self) { r in Dashboard(session: try r.resolve(Session.self, arguments: 3, "r")) }

        let dashboard = try container.resolve(Dashboard.self)

        #expect(dashboard.session.userID == 3 && dashboard.session.token == "r")
    }

    @Test func aResolvingOfYourOwnGetsTheShortFormWithANilTag() throws {
        let double = RecordingResolver()

        let values: [Any] = try double.resolve([Any].self, arguments: 1, "two", 3.0)

        #expect(values.count == 3)
        #expect(values[1] as? String == "two")
        #expect(double.tags.current == [nil])
    }

    @Test func resolveAsyncWithArgumentsAndNoTagAwaitsAnAsyncFactory() async throws {
        let container = Container(name: "app")
        container.register(Session.self) { (_, userID: Int, token: String) async throws in
            await Task.yield()
            return Session(userID: userID, token: token)
        }
        container.register(Dashboard.self) { r async throws in
            Dashboard(session: try await r.resolveAsync(Session.self, arguments: 9, "nested"))
        }

        let session = try await container.resolveAsync(Session.self, arguments: 42, "token")
        let inferred: Session = try await container.resolveAsync(arguments: 1, "x")
        let dashboard = try await container.resolveAsync(Dashboard.self)

        #expect(session.userID == 42 && session.token == "token")
        #expect(inferred.userID == 1)
        #expect(dashboard.session.token == "nested")
    }

    @Test func resolveAsyncWithArgumentsRunsASynchronousFactoryToo() async throws {
        let container = Container(name: "app")
        container.register(Session.self) { (_, userID: Int) in Session(userID: userID, token: "sync") }

        let session = try await container.resolveAsync(Session.self, arguments: 8)

        #expect(session.userID == 8 && session.token == "sync")
    }

    // MARK: implements with several types

    @Test func implementsWithSeveralTypesForwardsEachToTheSameInstance() throws {
        let container = Container(name: "app")
        container.register(Telemetry.self, lifetime: .singleton) { _ in Telemetry() }
            .implements((any Logging).self, (any Tracing).self, (any Metrics).self)

        let telemetry = try container.resolve(Telemetry.self)

        #expect(try container.resolve((any Logging).self) === telemetry)
        #expect(try container.resolve((any Tracing).self) === telemetry)
        #expect(try container.resolve((any Metrics).self) === telemetry)
    }

    @Test func implementsWithSeveralTypesAndATagForwardsEachUnderThatTag() throws {
        let container = Container(name: "app")
        container.register(Telemetry.self, lifetime: .singleton) { _ in Telemetry() }
            .implements((any Logging).self, (any Tracing).self, tag: "audit")

        let telemetry = try container.resolve(Telemetry.self)

        #expect(try container.resolve((any Logging).self, tag: "audit") === telemetry)
        #expect(try container.resolve((any Tracing).self, tag: "audit") === telemetry)
        #expect(try container.resolveIfRegistered((any Logging).self) == nil, "no untagged forward")
    }

    @Test func aTypeTheInstanceDoesNotConformToThrowsTypeMismatch() throws {
        let container = Container(name: "app")
        container.register(Telemetry.self) { _ in Telemetry() }
            .implements((any Logging).self, (any Unrelated).self)

        let error = try #require(throws: ResolutionError.self) { try container.resolve((any Unrelated).self) }

        #expect(error.kind == .typeMismatch)
        #expect(try container.resolve((any Logging).self) is Telemetry)
    }

    @Test func forwardedKeysOfSeveralTypesKeepTheRegistrationsArgumentTypes() throws {
        let container = Container(name: "app")
        container.register(Telemetry.self) { (_, _: Int) in Telemetry() }
            .implements((any Logging).self, (any Tracing).self)

        #expect(try container.resolve((any Tracing).self, arguments: 1) is Telemetry)
        let error = try #require(throws: ResolutionError.self) { try container.resolve((any Tracing).self) }
        #expect(error.kind == .argumentMismatch)
    }

    @Test func theSingleTypeFormOfImplementsStillTakesATag() throws {
        let container = Container(name: "app")
        container.register(Telemetry.self) { _ in Telemetry() }
            .implements((any Logging).self)
            .implements((any Tracing).self, tag: "t")

        #expect(try container.resolve((any Logging).self) is Telemetry)
        #expect(try container.resolve((any Tracing).self, tag: "t") is Telemetry)
    }

    // MARK: Container(name:modules:) with an array

    @Test func aRootCreatedWithAnArrayOfModulesInstallsThemInOrder() throws {
        let modules: [any ContainerModule] = ["core", "network"].map { TagModule(name: $0) }

        let app = Container(name: "app", modules: modules)
        let unnamed = Container(modules: [TagModule(name: "only")])
        let empty = Container(name: "empty", modules: [])

        #expect(app.name == "app" && app.parent == nil)
        #expect(try app.resolve(String.self, tag: "last") == "network")
        #expect(try app.resolve(String.self, tag: "core") == "core")
        #expect(unnamed.name == "root")
        #expect(try unnamed.resolve(String.self, tag: "only") == "only")
        #expect(try empty.resolveIfRegistered(String.self, tag: "last") == nil)
    }

    @Test func aChildCreatedWithAnArrayOfModulesGetsThemOnly() throws {
        let app = Container(name: "app", modules: [TagModule(name: "core")])

        let feature = app.makeChild(name: "feature", modules: [TagModule(name: "cart"), TagModule(name: "pay")])

        #expect(feature.parent === app)
        #expect(try feature.resolve(String.self, tag: "last") == "pay")
        #expect(try app.resolve(String.self, tag: "last") == "core")
    }

    // MARK: ResolutionError.Kind equality

    @Test func kindsAreEqualExactlyWhenTheyAreTheSameCase() {
        let kinds: [ResolutionError.Kind] = [
            .notRegistered, .circularDependency, .argumentMismatch, .typeMismatch, .factoryFailed(Boom()),
            .requiresAsync, .requiresMainActor, .containerShutDown,
        ]
        for (i, lhs) in kinds.enumerated() {
            for (j, rhs) in kinds.enumerated() {
                #expect((lhs == rhs) == (i == j), "\(lhs) == \(rhs)")
            }
        }
    }

    @Test func factoryFailuresAreEqualWhateverTheErrorsTheyCarry() {
        let disk: ResolutionError.Kind = .factoryFailed(Boom("disk"))
        let network: ResolutionError.Kind = .factoryFailed(CancellationError())

        #expect(disk == network)
        #expect(disk != .notRegistered)
    }

    @Test func factoryErrorIsTheThrownErrorOnlyForAFactoryFailure() throws {
        let container = Container(name: "app")
        container.register(Session.self) { _ in throw Boom("disk full") }

        let error = try #require(throws: ResolutionError.self) { try container.resolve(Session.self) }
        let missing = try #require(throws: ResolutionError.self) { try container.resolve(Dashboard.self) }

        #expect(error.kind == .factoryFailed(Boom()))
        #expect(error.kind.factoryError as? Boom == Boom("disk full"))
        #expect(missing.kind == .notRegistered)
        #expect(missing.kind.factoryError == nil)
    }
}
