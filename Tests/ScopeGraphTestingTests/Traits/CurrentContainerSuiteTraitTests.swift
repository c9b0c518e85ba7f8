import ScopeGraphTestSupport
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

/// A nested suite inherits its parent suite's `.container(_:)` binding; a nested suite with a
/// trait of its own binds its container for its tests, and a grandchild suite inherits that.
@Suite(.container(SuiteFixture.container))
struct NestedCurrentContainerSuiteTraitTests {
    @Suite struct Inheriting {
        @Test func aNestedSuiteWithoutATraitSeesItsParentsContainer() throws {
            #expect(Container.current === SuiteFixture.container)
            #expect(try Container.current.resolve(String.self) == "suite container")
        }
    }

    @Suite(.container(SuiteFixture.other))
    struct Rebinding {
        @Test func aNestedSuitesOwnTraitWins() {
            #expect(Container.current === SuiteFixture.other)
        }

        @Suite struct Grandchild {
            @Test func aGrandchildSuiteSeesTheNearestBinding() async {
                #expect(Container.current === SuiteFixture.other)
                let inChild = await Task { Container.current }.value
                #expect(inChild === SuiteFixture.other)
            }
        }
    }
}
