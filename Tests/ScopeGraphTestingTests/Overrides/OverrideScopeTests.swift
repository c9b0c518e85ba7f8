import Dispatch
import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

@Suite struct OverrideScopeTests {
    @Test func anOverrideAnswersBeforeTheContainersOwnRegistrationOnlyDuringTheOperation() throws {
        let fixture = ProfileFixture()
        let inside = try fixture.container.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
        } operation: {
            try fixture.container.resolve((any API).self).name
        }
        #expect(inside == "fake")
        #expect(try fixture.container.resolve((any API).self).name == "real")
    }

    @Test func anExistingInstanceOverridesARegistration() throws {
        let fixture = ProfileFixture()
        let fake = FakeAPI("given")
        let seen = try fixture.container.withOverrides {
            $0.register((any API).self, instance: fake)
        } operation: {
            [try fixture.container.resolve((any API).self), try fixture.container.resolve(Profile.self).api]
        }
        #expect(seen.allSatisfy { $0 === fake })
        #expect(try fixture.container.resolve((any API).self).name == "real")
    }

    @Test func theOperationsResultIsReturned() async throws {
        let container = Container(name: "app")
        let sync = container.withOverrides { _ in
        } operation: {
            41 + 1
        }
        let async = await container.withOverrides { _ in
        } operation: { () async -> String in
            await Task.yield()
            return "done"
        }
        #expect(sync == 42)
        #expect(async == "done")
    }

    @Test func anOverrideReachesADependentSingletonAlreadyCachedInTheContainer() throws {
        let fixture = ProfileFixture()
        let cached = try fixture.container.resolve(Profile.self)
        #expect(cached.api.name == "real")

        let scoped = try fixture.container.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
        } operation: {
            let first = try fixture.container.resolve(Profile.self)
            #expect(try fixture.container.resolve(Profile.self) === first, "built once per scope")
            return first
        }

        #expect(scoped !== cached)
        #expect(scoped.api.name == "fake")
        #expect(fixture.profileBuilds.value == 2)
        #expect(try fixture.container.resolve(Profile.self) === cached, "the container's cache is untouched")
    }

    @Test func aSingletonResolvedOnlyInsideAScopeIsNeverCachedInTheContainer() throws {
        let fixture = ProfileFixture()
        let scoped = try fixture.container.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
        } operation: {
            try fixture.container.resolve(Profile.self)
        }
        #expect(fixture.profileBuilds.value == 1)
        #expect(fixture.apiBuilds.value == 0, "the real API was never built")

        let outside = try fixture.container.resolve(Profile.self)

        #expect(outside !== scoped)
        #expect(outside.api.name == "real")
        #expect(fixture.profileBuilds.value == 2)
    }

    @Test func everyScopeBuildsItsOwnCachedInstances() throws {
        let container = Container(name: "app")
        container.register(Widget.self, lifetime: .singleton) { _ in Widget() }
        container.register(Widget.self, tag: "per", lifetime: .perContainer) { _ in Widget() }
        let first = try container.withOverrides { _ in
        } operation: {
            (try container.resolve(Widget.self), try container.resolve(Widget.self, tag: "per"))
        }
        let second = try container.withOverrides { _ in
        } operation: {
            (try container.resolve(Widget.self), try container.resolve(Widget.self, tag: "per"))
        }
        #expect(first.0 !== second.0)
        #expect(first.1 !== second.1)
    }

    @Test func theInnermostOfNestedScopesWins() throws {
        let container = appWithARealString()
        container.register(Int.self) { _ in 0 }
        try container.withOverrides {
            $0.register(String.self) { _ in "outer" }
            $0.register(Int.self) { _ in 1 }
        } operation: {
            try container.withOverrides {
                $0.register(String.self) { _ in "inner" }
            } operation: { () throws in
                #expect(try container.resolve(String.self) == "inner")
                #expect(try container.resolve(Int.self) == 1, "the outer scope's other overrides still apply")
            }
            #expect(try container.resolve(String.self) == "outer")
        }
        #expect(try container.resolve(String.self) == "real")
    }

    @Test func nestedScopesOnDifferentContainersCombine() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        root.register(String.self) { _ in "root" }
        feature.register(Int.self) { _ in 0 }
        try Self.expectNestedScopesCombine(root: root, other: feature, from: feature, number: 7)
    }

    /// Overrides `String` on `root` and, inside that scope, `Int` (as `number`) on `other`;
    /// expects both overrides to answer resolves from `feature`.
    private static func expectNestedScopesCombine(
        root: Container, other: Container, from feature: Container, number: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try root.withOverrides {
            $0.register(String.self) { _ in "fake root" }
        } operation: {
            try other.withOverrides {
                $0.register(Int.self) { _ in number }
            } operation: { () throws in
                #expect(try feature.resolve(String.self) == "fake root", sourceLocation: sourceLocation)
                #expect(try feature.resolve(Int.self) == number, sourceLocation: sourceLocation)
            }
        }
    }

    @Test func anOverrideOnAParentOrACollaboratorIsFoundByTheLookupWalk() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let partner = Container(name: "partner")
        feature.collaborate(with: partner)
        root.register(String.self) { _ in "root" }
        partner.register(Int.self) { _ in 0 }
        // Lookups from `feature` are memoized by these resolves; a scope must not use the memo.
        #expect(try feature.resolve(String.self) == "root")
        #expect(try feature.resolve(Int.self) == 0)
        try Self.expectNestedScopesCombine(root: root, other: partner, from: feature, number: 9)
    }

    @Test func anOverrideOnTheParentDoesNotBeatTheChildsOwnRegistration() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        feature.register(String.self) { _ in "feature" }
        try root.withOverrides {
            $0.register(String.self) { _ in "fake root" }
        } operation: { () throws in
            #expect(try feature.resolve(String.self) == "feature")
            #expect(try root.resolve(String.self) == "fake root")
        }
    }

    @Test func theScopeEndsWhenTheOperationThrows() throws {
        let container = appWithARealString()
        #expect(throws: Boom.self) {
            try container.withOverrides {
                $0.register(String.self) { _ in "fake" }
            } operation: {
                #expect(try container.resolve(String.self) == "fake")
                throw Boom()
            }
        }
        #expect(try container.resolve(String.self) == "real")
    }

    @Test func theAsyncScopeEndsWhenTheOperationThrows() async throws {
        let container = appWithARealString()
        await #expect(throws: Boom.self) {
            try await container.withOverrides {
                $0.register(String.self) { _ in "fake" }
            } operation: {
                await Task.yield()
                #expect(try container.resolve(String.self) == "fake")
                throw Boom()
            }
        }
        #expect(try container.resolve(String.self) == "real")
    }

    @Test func childTasksInheritTheScopeAndDetachedTasksDoNot() async throws {
        let container = appWithARealString()
        let seen = try await container.withOverrides {
            $0.register(String.self) { _ in "fake" }
        } operation: {
            async let inAsyncLet = container.resolve(String.self)
            let inTask = try await Task { try container.resolve(String.self) }.value
            let inGroup = try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask { try container.resolve(String.self) }
                return try await group.next()!
            }
            let inDetached = try await Task.detached { try container.resolve(String.self) }.value
            return [try await inAsyncLet, inTask, inGroup, inDetached]
        }
        #expect(seen == ["fake", "fake", "fake", "real"])
    }

    @Test func aCallbackOnAnotherThreadDoesNotSeeTheScope() throws {
        let container = appWithARealString()
        let seen = container.withOverrides {
            $0.register(String.self) { _ in "fake" }
        } operation: {
            let here = try? container.resolve(String.self)
            let there = try? StartedThread { try? container.resolve(String.self) }.value(timeout: 10)
            return [here, there ?? nil]
        }
        #expect(seen == ["fake", "real"])
    }

    /// Instances a scope built (cached lifetimes of the container, and the overrides) are
    /// neither written to the containers' caches nor kept once the scope has ended: after the
    /// scope the containers resolve instances of their own, and once the test drops its
    /// references, the scope's instances are freed.
    @Test func nothingBuiltInAScopeOutlivesIt() throws {
        let container = Container(name: "app")
        container.register(Widget.self, tag: "singleton", lifetime: .singleton) { _ in Widget() }
        container.register(Widget.self, tag: "weak", lifetime: .weakSingleton) { _ in Widget() }
        container.register(Widget.self, tag: "eager", lifetime: .eagerSingleton) { _ in Widget() }
        container.register(Widget.self, tag: "per", lifetime: .perContainer) { _ in Widget() }
        let child = container.makeChild(name: "child")
        // Strong references taken inside the scope, dropped below.
        var singleton: Widget?
        var weakSingleton: Widget?
        var eager: Widget?
        var perContainer: Widget?
        var perChild: Widget?
        var fake: FakeAPI?
        var profile: Profile?

        container.withOverrides {
            $0.register((any API).self, lifetime: .singleton) { _ in FakeAPI() }
            $0.register(Profile.self, lifetime: .singleton) { r in Profile(api: try r.resolve()) }
        } operation: {
            singleton = try? container.resolve(Widget.self, tag: "singleton")
            weakSingleton = try? container.resolve(Widget.self, tag: "weak")
            eager = try? container.resolve(Widget.self, tag: "eager")
            perContainer = try? container.resolve(Widget.self, tag: "per")
            perChild = try? child.resolve(Widget.self, tag: "per")
            fake = (try? container.resolve((any API).self)) as? FakeAPI
            profile = try? container.resolve(Profile.self)
        }
        #expect(singleton != nil && weakSingleton != nil && eager != nil && perContainer != nil && perChild != nil)
        #expect(fake != nil && profile != nil)

        // While the test still holds the scope's instances, the containers' caches do not
        // have them: each resolve builds the container's own.
        #expect(try container.resolve(Widget.self, tag: "singleton") !== singleton)
        #expect(try container.resolve(Widget.self, tag: "weak") !== weakSingleton)
        #expect(try container.resolve(Widget.self, tag: "eager") !== eager)
        #expect(try container.resolve(Widget.self, tag: "per") !== perContainer)
        #expect(try child.resolve(Widget.self, tag: "per") !== perChild)
        #expect(try container.resolveIfRegistered((any API).self) == nil, "the overrides are gone")

        // Once the test lets go, nothing (no scope, no container) keeps them alive.
        weak let watchedSingleton = singleton
        weak let watchedWeakSingleton = weakSingleton
        weak let watchedEager = eager
        weak let watchedPerContainer = perContainer
        weak let watchedPerChild = perChild
        weak let watchedFake = fake
        weak let watchedProfile = profile
        singleton = nil
        weakSingleton = nil
        eager = nil
        perContainer = nil
        perChild = nil
        fake = nil
        profile = nil
        #expect(watchedSingleton == nil)
        #expect(watchedWeakSingleton == nil)
        #expect(watchedEager == nil)
        #expect(watchedPerContainer == nil)
        #expect(watchedPerChild == nil)
        #expect(watchedFake == nil)
        #expect(watchedProfile == nil)
    }

    @Test func nothingBuiltInAnAsyncScopeOutlivesIt() async throws {
        let fixture = ProfileFixture()
        weak var profile: Profile?
        weak var fake: FakeAPI?
        try await fixture.container.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
        } operation: {
            await Task.yield()
            let built = try await Task { try fixture.container.resolve(Profile.self) }.value
            profile = built
            fake = built.api as? FakeAPI
        }
        #expect(profile == nil)
        #expect(fake == nil)
    }

    @Test func overridesAreVisibleToResolveAllAndOptionalResolves() throws {
        let container = appWithARealString()
        container.register(String.self, tag: "other") { _ in "other" }
        try container.withOverrides {
            $0.register(String.self) { _ in "fake" }
        } operation: { () throws in
            #expect(try container.resolveAll(String.self) == ["fake", "other"])
            #expect(try container.resolve(String?.self) == "fake")
            #expect(try container.resolveIfRegistered(String.self) == "fake")
        }
    }

    @Test func anOverrideCanAddAKeyTheContainerDoesNotHave() throws {
        let container = Container(name: "app")
        try container.withOverrides {
            $0.register(Int.self) { _ in 5 }
        } operation: { () throws in
            #expect(try container.resolve(Int.self) == 5)
        }
        #expect(try container.resolveIfRegistered(Int.self) == nil)
    }

    @Test func aPropertyWrapperContainerBindingAndOverridesWorkTogether() throws {
        let container = appWithARealString()
        let seen = try Container.$current.withValue(container) {
            try container.withOverrides {
                $0.register(String.self) { _ in "fake" }
            } operation: {
                try Container.current.resolve(String.self)
            }
        }
        #expect(seen == "fake")
    }

    @MainActor @Test func aMainActorTestCanTouchItsStateInsideAnAsyncScope() async throws {
        let screen = Screen()
        let container = appWithARealString()
        try await container.withOverrides {
            $0.register(String.self) { _ in "fake" }
        } operation: {
            await Task.yield()
            screen.title = try container.resolve(String.self)
        }
        #expect(screen.title == "fake")
    }
}

// MARK: Scopes over warm lookups, empty children, unrelated containers and task groups

extension OverrideScopeTests {
    /// A singleton resolved many times (parent and child) is built afresh in a scope, and the container keeps its own.
    @Test func aSingletonWithWarmLookupsIsBuiltAfreshInAScopeFromAChildToo() throws {
        let fixture = ProfileFixture()
        var cached: Profile?
        for _ in 0..<10 { cached = try fixture.container.resolve(Profile.self) }
        let child = fixture.container.makeChild(name: "child")
        for _ in 0..<10 { #expect(try child.resolve(Profile.self) === cached) }
        let scoped = try fixture.container.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
        } operation: {
            let viaChild = try child.resolve(Profile.self)
            #expect(try fixture.container.resolve(Profile.self) === viaChild)
            return viaChild
        }
        #expect(scoped !== cached)
        #expect(scoped.api.name == "fake")
        #expect(try child.resolve(Profile.self) === cached)
        #expect(try fixture.container.resolve(Profile.self) === cached)
    }

    /// An override on an empty child answers the child, but not the parent's owner-rooted singleton.
    @Test func anOverrideOnAnEmptyChildIsNotSeenByTheParentsSingleton() throws {
        let fixture = ProfileFixture()
        let child = fixture.container.makeChild(name: "child")
        for _ in 0..<10 { _ = try child.resolve(Profile.self) }
        for _ in 0..<10 { _ = try child.resolve((any API).self) }
        let (api, profile) = try child.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
        } operation: {
            (try child.resolve((any API).self), try child.resolve(Profile.self))
        }
        #expect(api.name == "fake")
        #expect(profile.api.name == "real", "owner-rooted: the root's lookup does not visit the child")
    }

    /// A scope on another container, or with no overrides, still builds cached lifetimes afresh.
    @Test func anyScopeEvenEmptyOrOnAnotherContainerBypassesTheCaches() throws {
        let fixture = ProfileFixture()
        let other = Container(name: "other")
        var cached: Profile?
        for _ in 0..<10 { cached = try fixture.container.resolve(Profile.self) }
        let inside = try other.withOverrides {
            $0.register(Int.self) { _ in 1 }
        } operation: {
            try fixture.container.resolve(Profile.self)
        }
        #expect(inside !== cached)
        let empty = try fixture.container.withOverrides { _ in
        } operation: {
            try fixture.container.resolve(Profile.self)
        }
        #expect(empty !== cached)
        #expect(try fixture.container.resolve(Profile.self) === cached)
    }

    /// perContainer in a scope: one per container in the scope, released at its end, the container's untouched.
    @Test func perContainerInstancesInAScopeArePerContainerAndReleasedAtItsEnd() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(Widget.self, lifetime: .perContainer) { _ in Widget() }
        var outside: Widget?
        for _ in 0..<10 { outside = try child.resolve(Widget.self) }
        weak var scopedWeak: Widget?
        try root.withOverrides {
            $0.register(Int.self) { _ in 1 }
        } operation: { () throws in
            let a = try child.resolve(Widget.self)
            #expect(a !== outside)
            #expect(try child.resolve(Widget.self) === a)
            #expect(try root.resolve(Widget.self) !== a)
            scopedWeak = a
        }
        #expect(scopedWeak == nil)
        #expect(try child.resolve(Widget.self) === outside)
    }

    /// An inner scope builds its own singleton; the outer scope's instance is the same afterwards.
    @Test func anInnerScopeLeavesTheOuterScopesInstance() throws {
        let fixture = ProfileFixture()
        try fixture.container.withOverrides {
            $0.register((any API).self) { _ in FakeAPI("outer") }
        } operation: { () throws in
            let outer = try fixture.container.resolve(Profile.self)
            let inner = try fixture.container.withOverrides {
                $0.register((any API).self) { _ in FakeAPI("inner") }
            } operation: {
                try fixture.container.resolve(Profile.self)
            }
            #expect(inner.api.name == "inner")
            #expect(outer.api.name == "outer")
            #expect(try fixture.container.resolve(Profile.self) === outer)
        }
    }

    /// Task-group children see the override; a detached task started inside them does not.
    @Test func taskGroupChildrenSeeTheOverrideAndADetachedTaskInsideThemDoesNot() async throws {
        let container = Container(name: "c")
        container.register(String.self) { _ in "real" }
        let seen = try await withAsyncWatchdog {
            try await container.withOverrides {
                $0.register(String.self) { _ in "fake" }
            } operation: { () async throws -> [String] in
                try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<4 { group.addTask { try container.resolve(String.self) } }
                    group.addTask { try await Task.detached { try container.resolve(String.self) }.value }
                    var all: [String] = []
                    for try await s in group { all.append(s) }
                    return all.sorted()
                }
            }
        }
        #expect(seen == ["fake", "fake", "fake", "fake", "real"])
    }
}
