import ScopeGraphTesting
import Testing

private enum SuiteFixture {
    static let container: Container = {
        let container = Container(name: "bound by the suite")
        container.register(String.self) { _ in "suite container" }
        return container
    }()
    static let other: Container = {
        let container = Container(name: "bound by a test")
        container.register(String.self) { _ in "test container" }
        return container
    }()
}

@Suite(.container(SuiteFixture.container))
struct CurrentContainerSuiteTraitTests {
    @Test func everyTestRunsWithTheSuitesContainerAsCurrent() throws {
        #expect(Container.current === SuiteFixture.container)
        #expect(try Container.current.resolve(String.self) == "suite container")
    }

    @Test func childTasksSeeTheBinding() async {
        let seen = await Task { Container.current }.value
        #expect(seen === SuiteFixture.container)
    }

    @Test(.container(SuiteFixture.other))
    func aTestsOwnBindingWins() throws {
        #expect(Container.current === SuiteFixture.other)
    }

    @Test func aDetachedTaskSeesTheDefault() async {
        let seen = await Task.detached { Container.current }.value
        #expect(seen === Container.shared)
    }
}
