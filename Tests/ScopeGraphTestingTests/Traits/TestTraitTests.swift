import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

private enum Fixture {
    static let container = containerWithTheRealAPI(named: "fixture")
}

/// A container only `theCurrentContainerTraitOnlyBindsAndCapturesNothing` registers into.
private enum BindOnly {
    static let container = Container(name: "bind-only")
}

@Suite struct TestTraitTests {
    @Test(.overrides(Fixture.container) { $0.register((any API).self) { _ in FakeAPI("trait") } })
    func theOverridesTraitScopesOneTest() throws {
        #expect(try Fixture.container.resolve(Profile.self).api.name == "trait")
    }

    @Test(
        .overrides(Fixture.container) { $0.register((any API).self) { _ in FakeAPI("case") } },
        arguments: ["a", "b", "c"])
    func theOverridesTraitScopesEachCaseOfAParameterizedTest(_ label: String) throws {
        let profile = try Fixture.container.resolve(Profile.self)
        #expect(profile.api.name == "case", "case \(label)")
    }

    @Test func withoutTheTraitATestSeesNoOverride() throws {
        // An empty scope, so that the fixture's own cache stays untouched for other tests.
        let name = try Fixture.container.withOverrides { _ in
        } operation: {
            try Fixture.container.resolve(Profile.self).api.name
        }
        #expect(name == "real")
    }

    @Test(.container(Fixture.container))
    func theContainerTraitBindsCurrent() {
        #expect(Container.current === Fixture.container)
    }

    /// The `.container(_:)` trait binds `Container.current` for every case of a parameterized test.
    @Test(.container(Fixture.container), arguments: [1, 2, 3])
    func theContainerTraitBindsCurrentForEachCase(_ index: Int) {
        #expect(Container.current === Fixture.container, "case \(index)")
    }

    @Test func withoutTheContainerTraitCurrentIsShared() {
        #expect(Container.current === Container.shared)
    }

    @Test(
        .container(Fixture.container),
        .overrides(Fixture.container) { $0.register((any API).self) { _ in FakeAPI("both") } })
    func bothTraitsTogetherGiveOverridesThroughCurrent() throws {
        #expect(try Container.current.resolve(Profile.self).api.name == "both")
    }

    @Test func theTraitsExposeTheirContainer() {
        let overrides = ContainerOverrideTrait.overrides(Fixture.container) { _ in }
        let binding = CurrentContainerTrait.currentContainer(Fixture.container)
        let scoped = TestContainerTrait.container(Fixture.container)
        #expect(overrides.container === Fixture.container)
        #expect(binding.container === Fixture.container)
        #expect(scoped.container === Fixture.container)
        #expect(overrides.isRecursive && binding.isRecursive && scoped.isRecursive)
    }

    /// `.currentContainer(_:)` binds `Container.current` and nothing more: a `register` in the
    /// body goes into the container itself, where a detached task (outside the test's
    /// task-locals) finds it.
    @Test(.currentContainer(BindOnly.container))
    func theCurrentContainerTraitOnlyBindsAndCapturesNothing() async throws {
        #expect(Container.current === BindOnly.container)
        let registration = BindOnly.container.register(String.self) { _ in "in the container" }
        defer { BindOnly.container.remove(registration) }
        let seenOutside = try await Task.detached { try BindOnly.container.resolve(String.self) }.value
        #expect(seenOutside == "in the container")
    }
}
