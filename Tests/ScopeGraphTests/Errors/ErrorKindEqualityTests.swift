import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

private final class Disk: Sendable {}
private final class Unregistered: Sendable {}

/// `ResolutionError.Kind` equality: kinds are equal when they are the same case, whatever error a
/// `.factoryFailed` carries; `factoryError` is the thrown error only for a factory failure.
@Suite struct ErrorKindEqualityTests {
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
        container.register(Disk.self) { _ in throw Boom("disk full") }

        let error = try #require(throws: ResolutionError.self) { try container.resolve(Disk.self) }
        let missing = try #require(throws: ResolutionError.self) { try container.resolve(Unregistered.self) }

        #expect(error.kind == .factoryFailed(Boom()))
        #expect(error.kind.factoryError as? Boom == Boom("disk full"))
        #expect(missing.kind == .notRegistered)
        #expect(missing.kind.factoryError == nil)
    }
}
