import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

private final class P1: Sendable {}
private final class P2: Sendable {}
private final class P3: Sendable {}
private final class P4: Sendable {}
private final class P5: Sendable {}
private final class P6: Sendable {}
private final class P7: Sendable {}
private final class P8: Sendable {}

private protocol Service: AnyObject, Sendable {
    /// The identities of the initializer's arguments, in order.
    var parameters: [ObjectIdentifier] { get }
}

private final class NoParameters: Service {
    var parameters: [ObjectIdentifier] { [] }
    init() {}
}

private final class OneParameter: Service {
    let p1: P1
    var parameters: [ObjectIdentifier] { [ObjectIdentifier(p1)] }
    init(p1: P1) { self.p1 = p1 }
}

private final class ThreeParameters: Service {
    let p1: P1, p2: P2, p3: P3
    var parameters: [ObjectIdentifier] { [ObjectIdentifier(p1), ObjectIdentifier(p2), ObjectIdentifier(p3)] }
    init(p1: P1, p2: P2, p3: P3) { (self.p1, self.p2, self.p3) = (p1, p2, p3) }
}

private final class EightParameters: Service {
    let parameters: [ObjectIdentifier]
    init(_ p1: P1, _ p2: P2, _ p3: P3, _ p4: P4, _ p5: P5, _ p6: P6, _ p7: P7, _ p8: P8) {
        let all: [AnyObject] = [p1, p2, p3, p4, p5, p6, p7, p8]
        parameters = all.map(ObjectIdentifier.init)
    }
}

/// Needs `P1`, which needs `P2`: a failure two levels down.
private final class Nested: Sendable {
    init(p1: P1) {}
}

/// Registers `P1`…`P8` as singletons in a new container, except the ones in `missing`.
private func parameterContainer(missing: Set<Int> = []) -> Container {
    let container = Container(name: "root")
    func add<P: AnyObject>(_ index: Int, _ make: @escaping @Sendable () -> P) {
        if !missing.contains(index) { container.register(P.self, lifetime: .singleton) { _ in make() } }
    }
    add(1) { P1() }
    add(2) { P2() }
    add(3) { P3() }
    add(4) { P4() }
    add(5) { P5() }
    add(6) { P6() }
    add(7) { P7() }
    add(8) { P8() }
    return container
}

/// The singletons of `container` for the first `count` parameter types.
private func expectedParameters(_ container: Container, count: Int) throws -> [ObjectIdentifier] {
    let all: [AnyObject] = [
        try container.resolve(P1.self), try container.resolve(P2.self), try container.resolve(P3.self),
        try container.resolve(P4.self), try container.resolve(P5.self), try container.resolve(P6.self),
        try container.resolve(P7.self), try container.resolve(P8.self),
    ]
    return all.prefix(count).map(ObjectIdentifier.init)
}

/// Auto-registers `Service` with the initializer that takes `parameterCount` parameters.
private func autoregisterService(in container: Container, parameterCount: Int) {
    switch parameterCount {
    case 0: container.autoregister(Service.self, initializer: NoParameters.init)
    case 1: container.autoregister(Service.self, initializer: OneParameter.init)
    case 3: container.autoregister(Service.self, initializer: ThreeParameters.init(p1:p2:p3:))
    case 8: container.autoregister(Service.self, initializer: EightParameters.init)
    default: Issue.record("no initializer with \(parameterCount) parameters")
    }
}

@Suite struct AutowiringTests {
    @Test(arguments: [0, 1, 3, 8])
    func wiresEveryParameterOfAnInitializer(parameterCount: Int) throws {
        let container = parameterContainer()
        autoregisterService(in: container, parameterCount: parameterCount)
        let service = try container.resolve(Service.self)
        #expect(service.parameters == (try expectedParameters(container, count: parameterCount)))
    }

    @Test func passesTheTagAndTheLifetimeThrough() throws {
        let container = parameterContainer()
        let registration = container.autoregister(
            Service.self, tag: "three", lifetime: .singleton, initializer: ThreeParameters.init)
        #expect(registration.lifetime == .singleton)
        #expect(registration.key == ServiceKey(typeName: "Service", tag: "three"))
        #expect(
            try container.resolve(Service.self, tag: "three") === (try container.resolve(Service.self, tag: "three")))
        #expect(try container.resolveIfRegistered(Service.self) == nil)
    }

    @Test func resolvesParametersFromTheChildTheRequestStartedFrom() throws {
        let root = Container(name: "root")
        root.autoregister(Service.self, initializer: OneParameter.init)
        let child = root.makeChild(name: "child")
        child.register(P1.self, lifetime: .singleton) { _ in P1() }
        let service = try child.resolve(Service.self)
        #expect(service.parameters.first == ObjectIdentifier(try child.resolve(P1.self)))
    }

    @Test(arguments: [(missing: 2, count: 3), (missing: 1, count: 3), (missing: 3, count: 3), (missing: 6, count: 8)])
    func aMissingParameterNamesItsTypeAndPosition(missing: Int, count: Int) throws {
        let container = parameterContainer(missing: [missing])
        autoregisterService(in: container, parameterCount: count)
        let parameter = "P\(missing)"

        let error = try #require(throws: ResolutionError.self) { try container.resolve(Service.self) }

        #expect(error.kind.description == "notRegistered")
        #expect(error.key == ServiceKey(typeName: parameter))
        #expect(error.path.map(\.description) == ["Service", parameter])
        #expect(error.searched == ["root"])
        #expect(
            error.suggestions.first
                == "Service is auto-wired: parameter \(missing) of \(count) (\(parameter)) of its initializer could not be resolved."
        )
        #expect(error.suggestions.count > 1)  // the lookup's own suggestions are kept
        #expect(error.description.contains("parameter \(missing) of \(count) (\(parameter))"))
    }

    @Test func aDeeperFailureIsReportedUnchangedAboutItsDeepestCause() throws {
        let container = Container(name: "root")
        container.autoregister(Nested.self, initializer: Nested.init)
        container.autoregister(P1.self, initializer: { (_: P2) in P1() })

        let error = try #require(throws: ResolutionError.self) { try container.resolve(Nested.self) }

        #expect(error.key == ServiceKey(typeName: "P2"))
        #expect(error.path.map(\.description) == ["Nested", "P1", "P2"])
        #expect(
            error.suggestions.first
                == "P1 is auto-wired: parameter 1 of 1 (P2) of its initializer could not be resolved.")
        #expect(!error.description.contains("Nested is auto-wired"))
    }
}
