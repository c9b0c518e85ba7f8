import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

@Suite struct OverrideRegistrarTests {
    @Test func overridesATaggedKeyOnly() throws {
        let container = Container(name: "app")
        container.register(String.self) { _ in "plain" }
        container.register(String.self, tag: "title") { _ in "real title" }
        try container.withOverrides {
            $0.register(String.self, tag: "title") { _ in "fake title" }
        } operation: { () throws in
            #expect(try container.resolve(String.self, tag: "title") == "fake title")
            #expect(try container.resolve(String.self) == "plain")
        }
    }

    /// The registration an override returns reports the lifetime it was given; the tests below
    /// check what each lifetime does inside the scope.
    @Test(arguments: [Lifetime.unique, .graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer])
    func anOverrideKeepsTheLifetimeItIsGiven(_ lifetime: Lifetime) {
        let container = Self.appWithARealWidget(.unique)
        var registration: Registration<Widget>?
        container.withOverrides {
            registration = $0.register(Widget.self, lifetime: lifetime) { _ in Widget("fake") }
        } operation: {
        }
        #expect(registration?.lifetime == lifetime)
    }

    /// Overrides `Widget` with a fake of `lifetime` whose builds `builds` counts, and registers
    /// a `WidgetPair` that asks for two widgets in one resolve.
    private static func countedFake(_ lifetime: Lifetime, counting builds: Counter) -> (OverrideRegistrar) -> Void {
        { registrar in
            registrar.register(Widget.self, lifetime: lifetime) { _ in
                builds.increment()
                return Widget("fake")
            }
            registrar.register(WidgetPair.self) { r in WidgetPair(try r.resolve(), try r.resolve()) }
        }
    }

    /// A container "app" whose real `Widget` has `lifetime`, for the overrides to replace.
    private static func appWithARealWidget(_ lifetime: Lifetime) -> Container {
        let container = Container(name: "app")
        container.register(Widget.self, lifetime: lifetime) { _ in Widget("real") }
        return container
    }

    /// Runs `body` with an app whose real `Widget` has `realLifetime`, inside a scope that
    /// overrides it with `countedFake(lifetime)`, and the counter of the fake's builds.
    private static func withCountedFake(
        _ lifetime: Lifetime, overARealWidget realLifetime: Lifetime,
        _ body: (Container, Counter) throws -> Void
    ) throws {
        let container = appWithARealWidget(realLifetime)
        let builds = Counter()
        try container.withOverrides(countedFake(lifetime, counting: builds)) { try body(container, builds) }
    }

    /// A `unique` override builds a new instance for every request, within one top-level
    /// resolve too.
    @Test func aUniqueOverrideBuildsANewInstanceForEveryRequest() throws {
        try Self.withCountedFake(.unique, overARealWidget: .singleton) { container, builds in
            let pair = try container.resolve(WidgetPair.self)
            #expect(pair.first.label == "fake")
            #expect(pair.first !== pair.second, "two requests in one resolve")
            let first = try container.resolve(Widget.self)
            let second = try container.resolve(Widget.self)
            #expect(first !== second, "two top-level resolves")
            #expect(builds.value == 4)
        }
    }

    /// A `graph` override is one instance for everything one top-level resolve builds, and a
    /// new one for the next top-level resolve.
    @Test func aGraphOverrideIsSharedWithinOneResolveAndBuiltAgainByTheNext() throws {
        try Self.withCountedFake(.graph, overARealWidget: .unique) { container, builds in
            let pair = try container.resolve(WidgetPair.self)
            #expect(pair.first.label == "fake")
            #expect(pair.first === pair.second, "one instance within one top-level resolve")
            #expect(builds.value == 1)
            let next = try container.resolve(WidgetPair.self)
            #expect(next.first === next.second)
            #expect(next.first !== pair.first, "a new instance for the next top-level resolve")
            #expect(builds.value == 2)
        }
    }

    /// A `singleton` override is built once for the whole scope, whichever resolve asks, and
    /// built afresh by the next scope.
    @Test func aSingletonOverrideIsBuiltOncePerScope() throws {
        let container = Self.appWithARealWidget(.unique)
        let builds = Counter()
        let overrides = Self.countedFake(.singleton, counting: builds)
        let first = try container.withOverrides(overrides) {
            let first = try container.resolve(Widget.self)
            #expect(try container.resolve(Widget.self) === first)
            #expect(first.label == "fake")
            return first
        }
        #expect(builds.value == 1)
        let second = try container.withOverrides(overrides) { try container.resolve(Widget.self) }
        #expect(second !== first)
        #expect(builds.value == 2)
    }

    /// A `weakSingleton` override is shared while someone holds it; the scope holds it weakly,
    /// so once the last strong reference goes, the next resolve runs the factory again.
    @Test func aWeakSingletonOverrideIsRebuiltAfterItsLastStrongReferenceGoes() throws {
        let container = Self.appWithARealWidget(.unique)
        let builds = Counter()
        try container.withOverrides(Self.countedFake(.weakSingleton, counting: builds)) {
            var held: Widget? = try container.resolve(Widget.self)
            do {
                let again = try container.resolve(Widget.self)
                #expect(again === held, "shared while held")
            }
            #expect(builds.value == 1)
            weak let watched = held
            held = nil
            #expect(watched == nil, "the scope does not keep it alive")
            let rebuilt = try container.resolve(Widget.self)
            #expect(rebuilt.label == "fake")
            #expect(builds.value == 2)
        }
    }

    /// A `perContainer` override gives the container and its child one instance each, each
    /// stable across resolves, and its factory resolves from the container that asked.
    @Test func aPerContainerOverrideGivesEachContainerItsOwnInstance() throws {
        let container = Container(name: "app")
        let child = container.makeChild(name: "child")
        container.register(Widget.self, lifetime: .unique) { _ in Widget("real") }
        let builds = Counter()
        try container.withOverrides {
            $0.register(Widget.self, lifetime: .perContainer) { r in
                builds.increment()
                return Widget(r.container.name)
            }
        } operation: {
            let mine = try container.resolve(Widget.self)
            let childs = try child.resolve(Widget.self)
            #expect(try container.resolve(Widget.self) === mine)
            #expect(try child.resolve(Widget.self) === childs)
            #expect(mine !== childs)
            #expect(mine.label == "app")
            #expect(childs.label == "child")
            #expect(builds.value == 2)
        }
    }

    /// An `eagerSingleton` override is cached in the scope like a singleton: built once by the
    /// first resolve, whichever container asks, and never cached in the container.
    @Test func anEagerSingletonOverrideIsBuiltOncePerScope() throws {
        let container = Container(name: "app")
        let child = container.makeChild(name: "child")
        let realBuilds = Counter()
        container.register(Widget.self, lifetime: .eagerSingleton, counting: realBuilds) { Widget("real") }
        let fakeBuilds = Counter()
        try container.withOverrides {
            $0.register(Widget.self, lifetime: .eagerSingleton) { _ in
                fakeBuilds.increment()
                return Widget("fake")
            }
        } operation: {
            let first = try container.resolve(Widget.self)
            #expect(first.label == "fake")
            #expect(try container.resolve(Widget.self) === first)
            #expect(try child.resolve(Widget.self) === first, "one instance for the scope, not per container")
        }
        #expect(fakeBuilds.value == 1)
        #expect(realBuilds.value == 0)
        #expect(try container.resolve(Widget.self).label == "real")
    }

    /// `bootstrap()` inside a scope builds the container's eager singletons in the scope: the
    /// container's cache stays empty, so `bootstrap()` after the scope builds them again.
    @Test func bootstrapInsideAScopeBuildsEagerSingletonsInTheScopeOnly() throws {
        let container = Container(name: "app")
        let builds = Counter()
        container.register(Widget.self, lifetime: .eagerSingleton, counting: builds) { Widget("eager") }
        let scoped = try container.withOverrides { _ in
        } operation: {
            try container.bootstrap()
            #expect(builds.value == 1)
            let scoped = try container.resolve(Widget.self)
            #expect(builds.value == 1, "the resolve gets what bootstrap built in the scope")
            return scoped
        }
        try container.bootstrap()
        #expect(builds.value == 2, "the container's own cache was empty")
        #expect(try container.resolve(Widget.self) !== scoped)
    }

    /// `bootstrap()` inside a scope builds what the scope's lookups see: an eager override
    /// (on the container or a child) instead of the registration it overrides, and nothing for a
    /// key overridden with another lifetime; the real eager singletons never run in the scope.
    @Test func bootstrapInsideAScopeBuildsTheEagerOverridesNotTheRegistrationsTheyReplace() throws {
        let container = Container(name: "app")
        let child = container.makeChild(name: "child")
        let builds = Locked<[String]>([])
        func eager(_ label: String) -> @Sendable (Resolver) -> Widget {
            { _ in
                builds.withLock { $0.append(label) }
                return Widget(label)
            }
        }
        container.register(Widget.self, tag: "replaced", lifetime: .eagerSingleton, factory: eager("real replaced"))
        container.register(Widget.self, tag: "demoted", lifetime: .eagerSingleton, factory: eager("real demoted"))
        container.register(Widget.self, tag: "kept", lifetime: .eagerSingleton, factory: eager("real kept"))
        child.register(Widget.self, lifetime: .eagerSingleton, factory: eager("real child"))
        try container.withOverrides {
            $0.register(Widget.self, tag: "replaced", lifetime: .eagerSingleton, factory: eager("fake replaced"))
            $0.register(Widget.self, tag: "demoted", lifetime: .unique, factory: eager("fake demoted"))
            $0.register(Widget.self, tag: "added", lifetime: .eagerSingleton, factory: eager("fake added"))
        } operation: {
            try child.withOverrides {
                $0.register(Widget.self, lifetime: .eagerSingleton, factory: eager("fake child"))
            } operation: {
                try container.bootstrap()
                #expect(builds.withLock { $0 } == ["fake replaced", "fake added", "real kept", "fake child"])
                #expect(try container.resolve(Widget.self, tag: "replaced").label == "fake replaced")
                #expect(try child.resolve(Widget.self).label == "fake child")
                #expect(builds.withLock { $0 }.count == 4, "the resolves get what bootstrap built in the scope")
            }
        }
        builds.withLock { $0 = [] }
        try container.bootstrap()
        #expect(builds.withLock { $0 } == ["real replaced", "real demoted", "real kept", "real child"])
    }

    @Test func overridesAKeyWithRuntimeArguments() throws {
        let container = Container(name: "app")
        container.register(String.self) { (_, id: Int) in "real \(id)" }
        container.register(String.self) { (_, id: Int, suffix: String) in "real \(id)\(suffix)" }
        try container.withOverrides {
            $0.register(String.self) { (_, id: Int) in "fake \(id)" }
            $0.register(String.self) { (_, id: Int, suffix: String) in "fake \(id)\(suffix)" }
        } operation: { () throws in
            #expect(try container.resolve(String.self, tag: nil, arguments: 3) == "fake 3")
            #expect(try container.resolve(String.self, tag: nil, arguments: 3, "!") == "fake 3!")
        }
        #expect(try container.resolve(String.self, tag: nil, arguments: 3) == "real 3")
    }

    @Test func implementsForwardsAnotherTypeToTheOverride() throws {
        let container = Container(name: "app")
        container.register((any API).self) { _ in RealAPI() }
        try container.withOverrides {
            $0.register(FakeAPI.self, lifetime: .singleton) { _ in FakeAPI("forwarded") }.implements((any API).self)
        } operation: {
            let api = try container.resolve((any API).self)
            #expect(api.name == "forwarded")
            #expect(api === (try container.resolve(FakeAPI.self)))
        }
        #expect(try container.resolve((any API).self).name == "real")
    }

    @Test func onResolvedRunsForTheOverridesInstances() throws {
        let container = Container(name: "app")
        container.register((any API).self) { _ in RealAPI() }
        container.register(Holder.self) { _ in Holder() }.onResolved { r, holder in holder.api = try r.resolve() }
        let calls = Counter()
        try container.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
            $0.register(Holder.self) { _ in Holder() }.onResolved { r, holder in
                calls.increment()
                holder.api = try r.resolve()
            }
        } operation: { () throws in
            #expect(try container.resolve(Holder.self).api?.name == "fake")
        }
        #expect(calls.value == 1)
        #expect(try container.resolve(Holder.self).api?.name == "real")
    }

    @Test func anOverridesFactoryResolvesThroughTheScope() throws {
        let container = Container(name: "app")
        container.register((any API).self) { _ in RealAPI() }
        container.register(String.self) { _ in "real" }
        try container.withOverrides {
            $0.register((any API).self) { _ in FakeAPI() }
            $0.register(String.self) { r in "built with \(try r.resolve((any API).self).name)" }
        } operation: { () throws in
            #expect(try container.resolve(String.self) == "built with fake")
        }
    }

    @Test func theRegistrarNamesItsContainer() {
        let container = Container(name: "app")
        let name = container.withOverrides { registrar in
            #expect(registrar.container === container)
        } operation: {
            container.name
        }
        #expect(name == "app")
    }

    #if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)  // where exit tests run
    /// Registering through a registrar kept past its overrides closure stops the program, with
    /// a message that says what went wrong and where to register instead.
    @Test func registeringAfterTheScopeStartedStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container(name: "app")
            var kept: OverrideRegistrar?
            _ = container.withOverrides {
                kept = $0
            } operation: {
                kept?.register(Int.self) { _ in 1 }
            }
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(output.contains("ScopeGraphTesting: an OverrideRegistrar was used after its scope started"))
        #expect(output.contains("register overrides (and call implements on them) inside the overrides closure only"))
    }
    #endif
}

/// Two widgets resolved by one factory, to see what one top-level resolve shares.
private final class WidgetPair: Sendable {
    let first: Widget
    let second: Widget
    init(_ first: Widget, _ second: Widget) {
        self.first = first
        self.second = second
    }
}
