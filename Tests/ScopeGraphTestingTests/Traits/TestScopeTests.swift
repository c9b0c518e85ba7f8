import Dispatch
import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

/// One shared container, as an app's composition root would be: the tests below register
/// fakes on it in their bodies, in parallel, and must never see each other's.
private enum App {
    static let root = containerWithTheRealAPI(named: "app-root")
}

/// `withTestScope` and the `.container(_:)` trait: plain `register` calls made by a test go into
/// the test's own scope, never into the shared container or another test.
@Suite struct TestScopeTests {
    @Test func aRegistrationMadeInATestScopeAnswersThereAndIsGoneAfterIt() throws {
        let fixture = ProfileFixture()
        let before = fixture.container.description
        let name = try fixture.container.withTestScope {
            fixture.container.register((any API).self) { _ in FakeAPI("scoped") }
            return try fixture.container.resolve(Profile.self).api.name
        }
        #expect(name == "scoped")
        #expect(fixture.container.description == before)
        #expect(try fixture.container.resolve(Profile.self).api.name == "real")
    }

    @Test func aTestScopesSingletonsAreItsOwnEvenWhenTheContainerHoldsOne() throws {
        let fixture = ProfileFixture()
        let shared = try fixture.container.resolve(Profile.self)
        let scoped = try fixture.container.withTestScope {
            fixture.container.register((any API).self) { _ in FakeAPI() }
            return try fixture.container.resolve(Profile.self)
        }
        #expect(scoped !== shared)
        #expect(scoped.api.name == "fake")
        #expect(try fixture.container.resolve(Profile.self) === shared)
    }

    @Test func aLaterRegistrationInTheScopeReplacesAnEarlierOne() throws {
        let fixture = ProfileFixture()
        try fixture.container.withTestScope { () throws in
            fixture.container.register((any API).self) { _ in FakeAPI("first") }
            fixture.container.register((any API).self) { _ in FakeAPI("second") }
            #expect(try fixture.container.resolve((any API).self).name == "second")
        }
    }

    @Test func registrationsInTheBodyAnswerBeforeTheScopesOverrides() throws {
        let fixture = ProfileFixture()
        let overrides: (OverrideRegistrar) -> Void = { $0.register((any API).self) { _ in FakeAPI("override") } }
        try fixture.container.withTestScope(overrides) { () throws in
            #expect(try fixture.container.resolve((any API).self).name == "override")
            fixture.container.register((any API).self) { _ in FakeAPI("body") }
            #expect(try fixture.container.resolve((any API).self).name == "body")
        }
    }

    @Test func implementsAndRemoveActOnTheScopesRegistration() throws {
        let fixture = ProfileFixture()
        try fixture.container.withTestScope { () throws in
            let registration = fixture.container.register(FakeAPI.self) { _ in FakeAPI("forwarded") }
                .implements((any API).self)
            #expect(try fixture.container.resolve((any API).self).name == "forwarded")
            fixture.container.remove(registration)
            #expect(try fixture.container.resolve((any API).self).name == "real")
            #expect(try fixture.container.resolveIfRegistered(FakeAPI.self) == nil)
        }
        #expect(try fixture.container.resolve((any API).self).name == "real")
    }

    @Test func aRegistrationOnAnotherContainerIsNotCaptured() throws {
        let fixture = ProfileFixture()
        let other = Container(name: "other")
        fixture.container.withTestScope {
            _ = other.register(Widget.self) { _ in Widget("other's") }
        }
        #expect(try other.resolve(Widget.self).label == "other's")
    }

    @Test func aRegistrationInAnInnerOverrideScopeStaysInTheTestScope() throws {
        let fixture = ProfileFixture()
        try fixture.container.withTestScope { () throws in
            fixture.container.withOverrides({ _ in }) {
                _ = fixture.container.register((any API).self) { _ in FakeAPI("inner") }
            }
            #expect(try fixture.container.resolve((any API).self).name == "inner")
        }
        #expect(try fixture.container.resolve((any API).self).name == "real")
    }

    @MainActor
    @Test func mainActorAndAsyncRegistrationsAreCapturedToo() async throws {
        let fixture = ProfileFixture()
        let names = try await fixture.container.withTestScope { () async throws -> [String] in
            fixture.container.register((any API).self) { @MainActor _ in FakeAPI("main actor") }
            fixture.container.register(Widget.self) { _ async in
                await Task.yield()
                return Widget("async")
            }
            let api = try await fixture.container.resolveAsync((any API).self)
            let widget = try await fixture.container.resolveAsync(Widget.self)
            return [api.name, widget.label]
        }
        #expect(names == ["main actor", "async"])
        #expect(try fixture.container.resolve((any API).self).name == "real")
        #expect(throws: ResolutionError.self) { try fixture.container.resolve(Widget.self) }
    }

    @Test func childTasksSeeAndMakeTheScopesRegistrations() async throws {
        let fixture = ProfileFixture()
        let names = try await withAsyncWatchdog {
            try await fixture.container.withTestScope {
                fixture.container.register((any API).self) { _ in FakeAPI("parent") }
                let seenByChild = try await Task { try fixture.container.resolve((any API).self).name }.value
                async let registeredByChild: Void = {
                    _ = fixture.container.register(Widget.self) { _ in Widget("child") }
                }()
                await registeredByChild
                return [seenByChild, try fixture.container.resolve(Widget.self).label]
            }
        }
        #expect(names == ["parent", "child"])
        #expect(try fixture.container.resolveIfRegistered(Widget.self) == nil)
    }

    @Test func aDetachedTaskRegistersInTheContainerItself() async throws {
        let fixture = ProfileFixture()
        let done = try await withAsyncWatchdog {
            try await fixture.container.withTestScope { () async throws in
                await Task.detached { _ = fixture.container.register(Widget.self) { _ in Widget("detached") } }.value
                return true
            }
        }
        #expect(done == true)
        #expect(try fixture.container.resolve(Widget.self).label == "detached")
    }

    @Test func anAsyncScopesCachedInstancesAreShutDownWhenItEnds() async throws {
        let fixture = ProfileFixture()
        let closed = Counter()
        let name = try await withAsyncWatchdog {
            try await fixture.container.withTestScope {
                fixture.container.register(Widget.self, lifetime: .singleton) { _ async in Widget("pool") }
                    .onShutdown { _ in closed.increment() }
                return try await fixture.container.resolveAsync(Widget.self).label
            }
        }
        #expect(name == "pool")
        #expect(closed.value == 1)
        #expect(try fixture.container.resolveIfRegistered(Widget.self) == nil)
    }

    @Test func sixtyFourParallelTasksRegisteringTheSameKeyEachSeeTheirOwn() async throws {
        let fixture = ProfileFixture(name: "shared")
        let before = fixture.container.description
        let taskCount = 64
        let seen = try await resultsOfTasksThatMeet(taskCount) { index, gate in
            try await fixture.container.withTestScope {
                fixture.container.register((any API).self) { _ in FakeAPI("fake \(index)") }
                await gate.arrive()
                let first = try fixture.container.resolve(Profile.self).api.name
                await Task.yield()
                fixture.container.register(Widget.self) { _ in Widget("widget \(index)") }
                let widget = try fixture.container.resolve(Widget.self).label
                return [first, widget]
            }
        }
        let sightings = try #require(seen)
        #expect(sightings.count == taskCount)
        for (index, names) in sightings {
            #expect(names == ["fake \(index)", "widget \(index)"])
        }
        #expect(fixture.container.description == before)
        #expect(fixture.apiBuilds.value == 0)
    }

    // MARK: The trait

    @Test(.container(App.root))
    func theContainerTraitCapturesARegistrationInTheTestBody() throws {
        App.root.register((any API).self) { _ in FakeAPI("one line") }
        #expect(try App.root.resolve(Profile.self).api.name == "one line")
        #expect(Container.current === App.root)
    }

    @Test(.container(App.root), arguments: 0..<8)
    func eachCaseOfAParameterizedTestHasItsOwnScope(_ index: Int) throws {
        #expect(try App.root.resolve((any API).self).name == "real", "case \(index) sees no other case's fake")
        App.root.register((any API).self) { _ in FakeAPI("case \(index)") }
        // The case's own Profile singleton, built with the case's fake.
        #expect(try App.root.resolve(Profile.self).api.name == "case \(index)")
    }

    @Test(.container(App.root) { $0.register((any API).self) { _ in FakeAPI("trait") } })
    func theContainerTraitStartsWithItsOverrides() throws {
        #expect(try App.root.resolve((any API).self).name == "trait")
        App.root.register((any API).self) { _ in FakeAPI("body") }
        #expect(try App.root.resolve(Profile.self).api.name == "body")
    }

    @Test func withoutTheTraitTheSharedContainerIsUntouched() throws {
        let noOverrides: (OverrideRegistrar) -> Void = { _ in }
        try App.root.withOverrides(noOverrides) { () throws in
            #expect(try App.root.resolve(Profile.self).api.name == "real")
        }
    }
}
