import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

private protocol Settings: AnyObject, Sendable {
    var environment: String { get }
}

private final class AppSettings: Settings {
    let environment: String
    init(environment: String) { self.environment = environment }
}

@Suite struct InstanceRegistrationTests {
    @Test func returnsTheSameObjectFromTheContainerAndItsChildren() throws {
        let settings = AppSettings(environment: "staging")
        let root = Container(name: "root")
        root.register(instance: settings)
        let child = root.makeChild(name: "child")
        #expect(try root.resolve(AppSettings.self) === settings)
        #expect(try child.resolve(AppSettings.self) === settings)
    }

    @Test func answersForAForwardedTypeWithTheSameObject() throws {
        let settings = AppSettings(environment: "staging")
        let container = Container(name: "root")
        container.register(instance: settings).implements(Settings.self)
        let resolved: Settings = try container.resolve()
        #expect(resolved === settings)
    }

    @Test func registersUnderTheGivenTypeAndTagAsAnAlreadyBuiltSingleton() throws {
        let settings = AppSettings(environment: "test")
        let container = Container(name: "root")
        let registration = container.register(Settings.self, tag: "test", instance: settings)
        #expect(registration.lifetime == .singleton)
        #expect(registration.key == ServiceKey(typeName: "Settings", tag: "test"))
        #expect(try container.resolve(Settings.self, tag: "test") === settings)
        #expect(try container.resolveIfRegistered(Settings.self) == nil)
    }

    @Test func keepsAValueType() throws {
        let container = Container(name: "root")
        container.register(String.self, tag: "url", instance: "https://example.test")
        #expect(try container.resolve(String.self, tag: "url") == "https://example.test")
    }

    @Test func runsOnResolvedOnceOnTheFirstResolve() throws {
        let runs = Locked(0)
        let container = Container(name: "root")
        container.register(instance: AppSettings(environment: "x"))
            .onResolved { _, _ in runs.withLock { $0 += 1 } }
        _ = try container.resolve(AppSettings.self)
        _ = try container.resolve(AppSettings.self)
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func keepsTheInstanceAliveUntilTheRegistrationIsRemoved() {
        let container = Container(name: "root")
        weak var observed: AppSettings?
        let registration: Registration<AppSettings>
        do {
            let settings = AppSettings(environment: "kept")
            observed = settings
            registration = container.register(instance: settings)
        }
        #expect(observed != nil)
        container.remove(registration)
        #expect(throws: ResolutionError.self) { try container.resolve(AppSettings.self) }
        _ = consume registration
        #expect(observed == nil)
    }
}
