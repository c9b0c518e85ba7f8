import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

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

/// `resolve(_:arguments:)` and `resolveAsync(_:arguments:)` without a tag: the untagged
/// registration taking those arguments, from a container, a factory's resolver, or a `Resolving` of
/// your own.
@Suite struct ResolveWithArgumentsTests {
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
}
