import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

/// The container the suite's trait overrides. Immutable: tests only resolve from it, and every
/// test runs in its own override scope, so nothing is ever cached in it.
private enum SuiteFixture {
    static let container: Container = {
        let container = Container(name: "suite")
        container.register((any API).self, lifetime: .singleton) { _ in RealAPI() }
        container.register(Profile.self, lifetime: .singleton) { r in Profile(api: try r.resolve()) }
        container.register(Counter.self, lifetime: .singleton) { _ in Counter() }
        container.register(String.self) { _ in "real" }
        return container
    }()

    /// Expects the container to answer `String` with `string` and `Profile` with the suite's
    /// fake API: the overrides in force, the suite's included.
    static func expectOverrides(
        string: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try container.resolve(String.self) == string, sourceLocation: sourceLocation)
        #expect(try container.resolve(Profile.self).api.name == "suite fake", sourceLocation: sourceLocation)
    }

    /// Expects case `number` to run in a scope of its own: the singleton `Counter` it resolves
    /// is its own (a counter shared between cases, through one suite-wide scope or the
    /// container's cache, would be incremented by several cases running in parallel).
    static func expectAScopeOfItsOwn(case number: Int, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let tally = try container.resolve(Counter.self)
        #expect(tally.increment() == 1, "case \(number)", sourceLocation: sourceLocation)
        await Task.yield()
        #expect(try container.resolve(Counter.self) === tally, sourceLocation: sourceLocation)
        #expect(tally.value == 1, "case \(number)", sourceLocation: sourceLocation)
    }
}

/// Tests of this suite run in parallel (the default); each one, and each case of a
/// parameterized one, runs in its own scope.
@Suite(
    .overrides(SuiteFixture.container) {
        $0.register((any API).self, lifetime: .singleton) { _ in FakeAPI("suite fake") }
        $0.register(String.self) { _ in "suite" }
    })
struct OverrideSuiteTraitTests {
    let container = SuiteFixture.container

    @Test func everyTestSeesTheSuitesOverride() throws {
        try SuiteFixture.expectOverrides(string: "suite")
    }

    @Test(arguments: 0..<16)
    func everyTestCaseGetsAScopeOfItsOwn(_ number: Int) async throws {
        try await SuiteFixture.expectAScopeOfItsOwn(case: number)
    }

    @Test(arguments: 0..<8)
    func asyncWorkInTheTestSeesTheOverride(_ number: Int) async throws {
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { try container.resolve(Profile.self).api.name } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(names == Array(repeating: "suite fake", count: 4), "case \(number)")
    }

    @Test(.overrides(SuiteFixture.container) { $0.register(String.self) { _ in "test" } })
    func aTestsOwnOverrideNestsInsideTheSuites() throws {
        try SuiteFixture.expectOverrides(string: "test")
    }

    @Test func aDetachedTaskEscapesTheSuitesScope() async throws {
        let seen = try await Task.detached { [container] in try container.resolve(String.self) }.value
        #expect(seen == "real")
    }

    /// The suite's trait applies to the tests of nested suites too, each test (and each case)
    /// in a scope of its own; a nested suite's own trait nests inside the outer suite's.
    @Suite struct NestedSuiteTests {
        @Test func aNestedSuitesTestSeesTheOuterSuitesOverride() throws {
            try SuiteFixture.expectOverrides(string: "suite")
        }

        @Test(arguments: 0..<8)
        func everyCaseOfANestedSuiteGetsAScopeOfItsOwn(_ number: Int) async throws {
            try await SuiteFixture.expectAScopeOfItsOwn(case: number)
        }

        @Suite(.overrides(SuiteFixture.container) { $0.register(String.self) { _ in "nested suite" } })
        struct WithATraitOfItsOwn {
            @Test func theInnerSuitesOverrideWinsAndTheOuterSuitesStillApplies() throws {
                try SuiteFixture.expectOverrides(string: "nested suite")
            }

            @Test(.overrides(SuiteFixture.container) { $0.register(String.self) { _ in "test" } })
            func aTestsOwnOverrideNestsInsideBothSuites() throws {
                try SuiteFixture.expectOverrides(string: "test")
            }
        }
    }
}
