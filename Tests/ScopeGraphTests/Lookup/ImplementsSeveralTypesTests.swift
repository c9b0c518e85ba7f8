import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

private protocol Logging: AnyObject, Sendable {}
private protocol Tracing: AnyObject, Sendable {}
private protocol Metrics: AnyObject, Sendable {}
private protocol Unrelated: AnyObject, Sendable {}

/// One object that plays several roles.
private final class Telemetry: Logging, Tracing, Metrics {}

/// `implements` with several types: each forwarded key gives the same instance, under the tag
/// given, with the registration's argument types; a type the instance does not conform to is a
/// `.typeMismatch`.
@Suite struct ImplementsSeveralTypesTests {
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
}
