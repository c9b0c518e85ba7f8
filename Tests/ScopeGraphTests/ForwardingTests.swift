import ScopeGraph
import Testing

/// Type forwarding with `implements`: the same instance wherever the lifetime shares it,
/// `typeMismatch` for a non-conforming instance, tags on forwarded keys.
@Suite struct ForwardingTests {
    protocol Logging: AnyObject, Sendable {}
    protocol Tracing: AnyObject, Sendable {}
    protocol Unrelated {}
    final class ConsoleLogger: Logging, Tracing, Sendable {}
    final class FileLogger: Logging, Sendable {}

    /// Resolves the implementation and the forwarded type within one top-level resolve.
    struct Both {
        let concrete: ConsoleLogger
        let forwarded: any Logging
    }

    @Test func aForwardedTypeResolvesToTheRegisteredInstance() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self) { _ in ConsoleLogger() }.implements((any Logging).self)
        let logger: any Logging = try container.resolve()
        #expect(logger is ConsoleLogger)
    }

    @Test(arguments: [Lifetime.singleton, .weakSingleton, .eagerSingleton, .perContainer])
    func cachedLifetimesGiveTheSameInstanceThroughEveryType(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(ConsoleLogger.self, lifetime: lifetime) { _ in
            runs.increment()
            return ConsoleLogger()
        }
        .implements((any Logging).self)
        .implements((any Tracing).self)
        let concrete = try container.resolve(ConsoleLogger.self)
        let logging = try container.resolve((any Logging).self)
        let tracing = try container.resolve((any Tracing).self)
        #expect(logging === concrete)
        #expect(tracing === concrete)
        #expect(runs.value == 1)
    }

    @Test func aGraphInstanceIsSharedThroughEveryTypeWithinOneResolve() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self) { _ in ConsoleLogger() }.implements((any Logging).self)
        container.register(Both.self) { r in Both(concrete: try r.resolve(), forwarded: try r.resolve()) }
        let both = try container.resolve(Both.self)
        #expect(both.forwarded === both.concrete)
        let again = try container.resolve(Both.self)
        #expect(again.concrete !== both.concrete)
    }

    @Test func aUniqueRegistrationGivesANewInstanceThroughEveryType() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self, lifetime: .unique) { _ in ConsoleLogger() }
            .implements((any Logging).self)
        container.register(Both.self) { r in Both(concrete: try r.resolve(), forwarded: try r.resolve()) }
        let both = try container.resolve(Both.self)
        #expect(both.forwarded !== both.concrete)
    }

    @Test func aNonConformingInstanceThrowsTypeMismatch() throws {
        let container = Container(name: "root")
        container.register(FileLogger.self) { _ in FileLogger() }.implements((any Tracing).self)
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve((any Tracing).self) }
        #expect(error.kind.caseName == "typeMismatch")
        #expect(error.key.typeName == String(describing: (any Tracing).self))
        // The registration's own type still resolves.
        _ = try container.resolve(FileLogger.self)
    }

    @Test func aValueThatDoesNotConformThrowsTypeMismatch() throws {
        let container = Container(name: "root")
        container.register(Int.self) { _ in 42 }.implements(String.self)
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(String.self) }
        #expect(error.kind.caseName == "typeMismatch")
        #expect(error.key == ServiceKey(typeName: "String"))
        #expect(
            error.suggestions == [
                "the Int registration in 'root' answers String through implements(_:), but its factory returned an instance of Int, which does not conform to String; make Int conform, or remove that implements call"
            ])
    }

    @Test func aForwardCanCarryATag() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            .implements((any Logging).self, tag: "console")
        container.register(FileLogger.self, lifetime: .singleton) { _ in FileLogger() }
            .implements((any Logging).self, tag: "file")
        #expect(try container.resolve((any Logging).self, tag: "console") === container.resolve(ConsoleLogger.self))
        #expect(try container.resolve((any Logging).self, tag: "file") === container.resolve(FileLogger.self))
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve((any Logging).self) }
        #expect(error.kind.caseName == "notRegistered")
    }

    @Test func aTaggedRegistrationForwardsUntaggedUnlessATagIsGiven() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self, tag: "main", lifetime: .singleton) { _ in ConsoleLogger() }
            .implements((any Logging).self)
        let logger = try container.resolve((any Logging).self)
        #expect(try logger === container.resolve(ConsoleLogger.self, tag: "main"))
        #expect(throws: ResolutionError.self) { _ = try container.resolve((any Logging).self, tag: "main") }
    }

    @Test func aForwardIsVisibleFromChildren() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }.implements((any Logging).self)
        #expect(try child.resolve((any Logging).self) === root.resolve(ConsoleLogger.self))
    }

    @Test func replacingARegistrationDropsItsForwards() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self) { _ in ConsoleLogger() }.implements((any Logging).self)
        container.register(ConsoleLogger.self) { _ in ConsoleLogger() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve((any Logging).self) }
        #expect(error.kind.caseName == "notRegistered")
    }

    @Test func aLaterRegistrationOfTheForwardedKeyReplacesTheForward() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            .implements((any Logging).self)
        container.register((any Logging).self) { _ in FileLogger() }
        #expect(try container.resolve((any Logging).self) is FileLogger)
        _ = try container.resolve(ConsoleLogger.self)
    }

    @Test func removeDropsTheRegistrationsForwards() throws {
        let container = Container(name: "root")
        let registration = container.register(ConsoleLogger.self) { _ in ConsoleLogger() }
            .implements((any Logging).self)
        container.remove(registration)
        #expect(throws: ResolutionError.self) { _ = try container.resolve((any Logging).self) }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(ConsoleLogger.self) }
    }
}
