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

    @Test(arguments: [Lifetime.unique, .graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer])
    func anOverrideKeepsTheLifetimeItIsGiven(_ lifetime: Lifetime) throws {
        let container = Container(name: "app")
        container.register(Widget.self, lifetime: .unique) { _ in Widget("real") }
        let sharesWithinAScope = lifetime != .unique
        try container.withOverrides {
            $0.register(Widget.self, lifetime: lifetime) { _ in Widget("fake") }
        } operation: {
            let first = try container.resolve(Widget.self)
            let second = try container.resolve(Widget.self)
            #expect(first.label == "fake")
            // `graph` shares within one top-level resolve only; cached lifetimes for the scope.
            let shared = first === second
            #expect(shared == (sharesWithinAScope && lifetime != .graph))
        }
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
        let calls = Tally()
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

    @Test func registeringAfterTheScopeStartedStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let container = Container(name: "app")
            var kept: OverrideRegistrar?
            _ = container.withOverrides {
                kept = $0
            } operation: {
                kept?.register(Int.self) { _ in 1 }
            }
        }
    }
}
