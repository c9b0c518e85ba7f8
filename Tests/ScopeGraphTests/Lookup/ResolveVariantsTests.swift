import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// `resolveIfRegistered`, `resolveAll`, optionals, and resolves made from inside a factory.
@Suite struct ResolveVariantsTests {
    protocol Plugin: AnyObject, Sendable {
        var name: String { get }
    }

    final class NamedPlugin: Plugin, Sendable {
        let name: String
        let shared: Shared?
        init(_ name: String, shared: Shared? = nil) {
            self.name = name
            self.shared = shared
        }
    }

    final class Shared: Sendable {}
    final class Dependency: Sendable {}
    final class Owner: @unchecked Sendable {
        // @unchecked: set once by an onResolved block before the resolve returns.
        var dependency: Dependency?
    }
    final class A: Sendable {}
    final class B: Sendable {}

    struct Pair {
        let first: Shared
        let second: Shared
    }

    // MARK: resolveIfRegistered

    @Test func resolveIfRegisteredReturnsNilWhenNothingIsRegistered() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        #expect(try child.resolveIfRegistered(Dependency.self) == nil)
        let inferred: Dependency? = try child.resolveIfRegistered()
        #expect(inferred == nil)
    }

    @Test func resolveIfRegisteredReturnsTheInstanceWhenSomethingIsRegistered() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(Dependency.self, lifetime: .singleton) { _ in Dependency() }
        let found = try #require(try child.resolveIfRegistered(Dependency.self))
        #expect(try found === root.resolve(Dependency.self))
    }

    @Test func resolveIfRegisteredDoesNotFallBackBetweenTags() throws {
        let container = Container(name: "root")
        container.register(Dependency.self) { _ in Dependency() }
        #expect(try container.resolveIfRegistered(Dependency.self, tag: "other") == nil)
        container.register(Dependency.self, tag: "other") { _ in Dependency() }
        #expect(try container.resolveIfRegistered(Dependency.self, tag: "other") != nil)
    }

    @Test func resolveIfRegisteredStillThrowsWhenTheFactoryFails() throws {
        let container = Container(name: "root")
        container.register(Dependency.self) { _ in throw Boom("broken") }
        let error = try #require(throws: ResolutionError.self) {
            _ = try container.resolveIfRegistered(Dependency.self)
        }
        #expect(error.kind.caseName == "factoryFailed")
        #expect(error.kind.underlyingError as? Boom == Boom("broken"))
    }

    @Test func resolveIfRegisteredStillThrowsWhenADependencyIsMissing() throws {
        let container = Container(name: "root")
        container.register(Owner.self, needing: Dependency.self) { Owner() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolveIfRegistered(Owner.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.key.typeName == "Dependency")
    }

    @Test func resolveIfRegisteredStillThrowsOnArgumentMismatch() throws {
        let container = Container(name: "root")
        container.register(Dependency.self) { (_, n: Int) in Dependency() }
        let error = try #require(throws: ResolutionError.self) {
            _ = try container.resolveIfRegistered(Dependency.self)
        }
        #expect(error.kind.caseName == "argumentMismatch")
    }

    @Test func resolveIfRegisteredThroughAResolverReturnsNilForAMissingKey() throws {
        let container = Container(name: "root")
        container.register(Owner.self) { r in
            let owner = Owner()
            owner.dependency = try r.resolveIfRegistered(Dependency.self)
            return owner
        }
        #expect(try container.resolve(Owner.self).dependency == nil)
        container.register(Dependency.self) { _ in Dependency() }
        #expect(try container.resolve(Owner.self).dependency != nil)
    }

    @Test func resolveIfRegisteredOfAnOptionalSeesTheWrappedRegistration() throws {
        let container = Container(name: "root")
        #expect(try container.resolveIfRegistered(Dependency?.self) == nil)
        container.register(Dependency.self, lifetime: .singleton) { _ in Dependency() }
        let found = try container.resolveIfRegistered(Dependency?.self)
        let unwrapped = try #require(found ?? nil)
        #expect(try unwrapped === container.resolve(Dependency.self))
    }

    // MARK: resolveAll

    @Test func resolveAllReturnsEveryTagInWalkOrder() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let partner = Container(name: "partner")
        feature.collaborate(with: partner)
        root.register(NamedPlugin.self, tag: "root-1") { _ in NamedPlugin("root-1") }
        partner.register(NamedPlugin.self, tag: "partner-1") { _ in NamedPlugin("partner-1") }
        feature.register(NamedPlugin.self, tag: "feature-2") { _ in NamedPlugin("feature-2") }
        feature.register(NamedPlugin.self) { _ in NamedPlugin("feature-untagged") }
        root.register(NamedPlugin.self, tag: "root-2") { _ in NamedPlugin("root-2") }
        let names = try feature.resolveAll(NamedPlugin.self).map(\.name)
        #expect(names == ["feature-2", "feature-untagged", "partner-1", "root-1", "root-2"])
    }

    /// Registration order is the order of the registrations that answer now: a replaced key
    /// counts as registered when it was replaced, so it moves after the keys registered since.
    @Test func resolveAllPutsAReplacedRegistrationWhereItWasReplaced() throws {
        let container = Container(name: "root")
        container.register(NamedPlugin.self, tag: "a") { _ in NamedPlugin("a") }
        container.register(NamedPlugin.self, tag: "b") { _ in NamedPlugin("b") }
        container.register(NamedPlugin.self, tag: "a") { _ in NamedPlugin("a, replaced") }
        #expect(try container.resolveAll(NamedPlugin.self).map(\.name) == ["b", "a, replaced"])
    }

    /// A registration keeps its place when it forwards a type later: `implements` adds a key,
    /// not a registration.
    @Test func resolveAllListsAForwardingRegistrationWhereItWasRegisteredHoweverLateItsImplementsCame() throws {
        let container = Container(name: "root")
        let first = container.register(NamedPlugin.self, tag: "first") { _ in NamedPlugin("first") }
        container.register((any Plugin).self, tag: "second") { _ in NamedPlugin("second") }
        first.implements((any Plugin).self, tag: "first")
        #expect(try container.resolveAll((any Plugin).self).map(\.name) == ["first", "second"])
    }

    @Test func resolveAllLetsANearerKeyHideTheSameKeyFartherAway() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        root.register(NamedPlugin.self, tag: "a") { _ in NamedPlugin("root-a") }
        root.register(NamedPlugin.self, tag: "b") { _ in NamedPlugin("root-b") }
        feature.register(NamedPlugin.self, tag: "b") { _ in NamedPlugin("feature-b") }
        #expect(try feature.resolveAll(NamedPlugin.self).map(\.name) == ["feature-b", "root-a"])
        #expect(try root.resolveAll(NamedPlugin.self).map(\.name) == ["root-a", "root-b"])
    }

    @Test func resolveAllSkipsRegistrationsThatNeedArguments() throws {
        let container = Container(name: "root")
        container.register(NamedPlugin.self, tag: "plain") { _ in NamedPlugin("plain") }
        container.register(NamedPlugin.self, tag: "args") { (_, n: Int) in NamedPlugin("args \(n)") }
        #expect(try container.resolveAll(NamedPlugin.self).map(\.name) == ["plain"])
    }

    @Test func resolveAllReturnsNothingWhenNothingIsRegistered() throws {
        let container = Container(name: "root")
        #expect(try container.resolveAll(NamedPlugin.self).isEmpty)
    }

    @Test func resolveAllIncludesForwardedRegistrations() throws {
        let container = Container(name: "root")
        container.register(NamedPlugin.self, tag: "search", lifetime: .singleton) { _ in NamedPlugin("search") }
            .implements((any Plugin).self, tag: "search")
        container.register(NamedPlugin.self, tag: "share", lifetime: .singleton) { _ in NamedPlugin("share") }
            .implements((any Plugin).self, tag: "share")
        let plugins = try container.resolveAll((any Plugin).self)
        #expect(plugins.map(\.name) == ["search", "share"])
        #expect(try plugins.first === container.resolve(NamedPlugin.self, tag: "search"))
    }

    /// One instance per registration: a registration that answers for `T` under two tags is
    /// not returned twice (for `unique`, not built twice), and takes the place of its first key.
    @Test(arguments: [Lifetime.unique, .singleton])
    func resolveAllGivesARegistrationAnsweringUnderSeveralTagsOnce(_ lifetime: Lifetime) throws {
        let container = Container(name: "root")
        let builds = Counter()
        container.register(NamedPlugin.self, tag: "first") { _ in NamedPlugin("first") }
            .implements((any Plugin).self, tag: "first")
        container.register(NamedPlugin.self, tag: "both", lifetime: lifetime, counting: builds) { NamedPlugin("both") }
            .implements((any Plugin).self, tag: "a")
            .implements((any Plugin).self, tag: "b")
        container.register(NamedPlugin.self, tag: "last") { _ in NamedPlugin("last") }
            .implements((any Plugin).self)
        #expect(try container.resolveAll((any Plugin).self).map(\.name) == ["first", "both", "last"])
        #expect(builds.value == 1)
    }

    @Test func resolveAllRunsAsOneTopLevelResolve() throws {
        let container = Container(name: "root")
        container.register(Shared.self) { _ in Shared() }
        container.register(NamedPlugin.self, tag: "a") { r in NamedPlugin("a", shared: try r.resolve()) }
        container.register(NamedPlugin.self, tag: "b") { r in NamedPlugin("b", shared: try r.resolve()) }
        let plugins = try container.resolveAll(NamedPlugin.self)
        #expect(plugins.count == 2)
        #expect(plugins[0].shared != nil)
        #expect(plugins[0].shared === plugins[1].shared)
    }

    @Test func resolveAllThrowsWhenOneRegistrationFails() throws {
        let container = Container(name: "root")
        container.register(NamedPlugin.self, tag: "good") { _ in NamedPlugin("good") }
        container.register(NamedPlugin.self, tag: "bad") { _ in throw Boom("bad plugin") }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolveAll(NamedPlugin.self) }
        #expect(error.kind.underlyingError as? Boom == Boom("bad plugin"))
        #expect(error.key == ServiceKey(typeName: "NamedPlugin", tag: "bad"))
    }

    @Test func resolveAllThroughAResolverStartsFromTheResolversContainer() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        root.register(NamedPlugin.self, tag: "root") { _ in NamedPlugin("root") }
        feature.register(NamedPlugin.self, tag: "feature") { _ in NamedPlugin("feature") }
        root.register([String].self) { r in try r.resolveAll(NamedPlugin.self).map(\.name) }
        #expect(try feature.resolve([String].self) == ["feature", "root"])
        #expect(try root.resolve([String].self) == ["root"])
    }

    // MARK: Optionals

    @Test func anOptionalPropertyIsInjectedInOnResolved() throws {
        let container = Container(name: "root")
        container.register(Dependency.self, lifetime: .singleton) { _ in Dependency() }
        container.register(Owner.self) { _ in Owner() }.onResolved { r, owner in owner.dependency = try r.resolve() }
        let owner = try container.resolve(Owner.self)
        #expect(owner.dependency != nil)
        #expect(try owner.dependency === container.resolve(Dependency.self))
    }

    @Test func resolvingAnOptionalThrowsExactlyAsResolvingTheWrappedType() throws {
        let container = Container(name: "root")
        container.register(Dependency.self, tag: "tagged") { _ in Dependency() }
        let plain = try #require(throws: ResolutionError.self) { _ = try container.resolve(Dependency.self) }
        let optional = try #require(throws: ResolutionError.self) { _ = try container.resolve(Dependency?.self) }
        #expect(optional.kind.caseName == plain.kind.caseName)
        #expect(optional.key == plain.key)
        #expect(optional.searched == plain.searched)
    }

    @Test func anOptionalPropertyWhoseTypeIsMissingFailsTheResolve() throws {
        let container = Container(name: "root")
        container.register(Owner.self) { _ in Owner() }.onResolved { r, owner in owner.dependency = try r.resolve() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Owner.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.key.typeName == "Dependency")
    }

    @Test func aRegistrationForTheOptionalItselfWins() throws {
        let container = Container(name: "root")
        container.register(Dependency.self) { _ in Dependency() }
        container.register(Dependency?.self) { _ in nil }
        #expect(try container.resolve(Dependency?.self) == nil)
    }

    @Test func anOptionalWithATagResolvesTheTaggedWrappedKey() throws {
        let container = Container(name: "root")
        container.register(Dependency.self, tag: "x", lifetime: .singleton) { _ in Dependency() }
        let optional = try container.resolve(Dependency?.self, tag: "x")
        #expect(try optional === container.resolve(Dependency.self, tag: "x"))
    }

    // MARK: Resolving from inside a factory

    @Test func containerResolveInsideAFactoryJoinsTheResolveForCycleDetection() throws {
        let container = Container(name: "root")
        container.register(A.self) { [unowned container] _ in
            _ = try container.resolve(B.self)
            return A()
        }
        container.register(B.self) { [unowned container] _ in
            _ = try container.resolve(A.self)
            return B()
        }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(A.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["A", "B", "A"])
    }

    @Test func containerResolveInsideAFactorySharesGraphInstances() throws {
        let container = Container(name: "root")
        container.register(Shared.self) { _ in Shared() }
        container.register(Pair.self) { [unowned container] r in
            Pair(first: try r.resolve(), second: try container.resolve())
        }
        let pair = try container.resolve(Pair.self)
        #expect(pair.first === pair.second)
    }

    @Test func containerResolveInsideAFactoryDefersOnResolvedToTheEndOfTheTopLevelResolve() throws {
        let container = Container(name: "root")
        let seenInFactory = Guarded<Bool?>(nil)
        container.register(Dependency.self, lifetime: .singleton) { _ in Dependency() }
        container.register(Owner.self) { _ in Owner() }.onResolved { r, owner in owner.dependency = try r.resolve() }
        container.register(A.self) { [unowned container] _ in
            let owner = try container.resolve(Owner.self)
            seenInFactory.withLock { $0 = owner.dependency != nil }
            return A()
        }
        _ = try container.resolve(A.self)
        #expect(seenInFactory.withLock { $0 } == false)
    }

    @Test func containerResolveInsideAFactoryStartsItsLookupFromThatContainer() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(String.self) { _ in "root" }
        child.register(String.self) { _ in "child" }
        root.register([String].self) { [unowned child] r in [try r.resolve(), try child.resolve()] }
        #expect(try root.resolve([String].self) == ["root", "child"])
    }

    @Test func aResolversContainerIsTheOwnerForSingletonsAndTheStartForOtherLifetimes() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let seen = EventLog()
        for lifetime in [Lifetime.singleton, .weakSingleton, .eagerSingleton, .unique, .graph, .perContainer] {
            root.register(Shared.self, tag: ServiceTag("\(lifetime)"), lifetime: lifetime) { r in
                seen.record("\(lifetime):\(r.container.name)")
                return Shared()
            }
        }
        for lifetime in [Lifetime.singleton, .weakSingleton, .eagerSingleton, .unique, .graph, .perContainer] {
            _ = try child.resolve(Shared.self, tag: ServiceTag("\(lifetime)"))
        }
        #expect(
            seen.events == [
                "singleton:root", "weakSingleton:root", "eagerSingleton:root",
                "unique:child", "graph:child", "perContainer:child",
            ])
    }
}

// MARK: - A Resolving of your own

extension ResolveVariantsTests {
    /// A test double that resolves from a fixed table instead of a container, and throws
    /// `.notRegistered` for anything else, as a container would.
    struct StubResolver: Resolving {
        let plugins: [String: NamedPlugin]

        func resolve<T>(_ type: T.Type, tag: ServiceTag?) throws -> T {
            let name = tag?.name ?? "untagged"
            guard let plugin = plugins[name] as? T else {
                throw ResolutionError(
                    kind: .notRegistered, key: ServiceKey(typeName: "\(T.self)", tag: tag),
                    path: [ServiceKey(typeName: "\(T.self)", tag: tag)])
            }
            return plugin
        }

        func resolve<T, each A>(_ type: T.Type, tag: ServiceTag?, arguments: repeat each A) throws -> T {
            try resolve(type, tag: tag)
        }
    }

    /// The extension methods of `Resolving` work for a conforming type of your own: the
    /// defaulted `resolve`, `resolveIfRegistered` (nil only for `.notRegistered` of the key
    /// itself) and `resolveAll` (the untagged instance, or none).
    @Test func theExtensionMethodsWorkForAResolvingOfYourOwn() throws {
        let stub = StubResolver(plugins: ["untagged": NamedPlugin("main"), "extra": NamedPlugin("extra")])
        let main: NamedPlugin = try stub.resolve()
        #expect(main.name == "main")
        #expect(try stub.resolve(NamedPlugin.self, tag: "extra").name == "extra")
        #expect(try stub.resolveIfRegistered(NamedPlugin.self, tag: "extra")?.name == "extra")
        #expect(try stub.resolveIfRegistered(NamedPlugin.self, tag: "missing") == nil)
        #expect(try stub.resolveAll(NamedPlugin.self).map(\.name) == ["main"])

        let empty = StubResolver(plugins: [:])
        #expect(try empty.resolveAll(NamedPlugin.self).isEmpty, "nothing registered is no error")
        #expect(throws: ResolutionError.self) { try empty.resolve(NamedPlugin.self) }
    }
}

// MARK: resolveAll, optionals and resolveIfRegistered combined with other features

extension ResolveVariantsTests {
    /// resolveAll across links and forwards, optionals with arguments and parents, resolveIfRegistered inside factories.
    @Suite struct Combined: ProbeFixtures {
        // Spelled out: `ResolveVariantsTests` has a `Plugin` of its own, which would win.
        typealias Plugin = ProbeTypes.Plugin

        /// A nearer registration with runtime arguments is another key: it hides nothing from resolveAll.
        @Test func resolveAllANearerKeyWithArgumentsDoesNotHideTheSameTypeAndTagWithout() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            child.register(NamedPlugin.self, tag: "a") { (_, n: Int) in NamedPlugin("child-args") }
            root.register(NamedPlugin.self, tag: "a") { _ in NamedPlugin("root-a") }
            #expect(try child.resolveAll(NamedPlugin.self).map(\.name) == ["root-a"])
        }

        /// resolveAll from either end of a link cycle: walk order, parents brought along, a forwarded tagged key hidden by a nearer one.
        @Test func resolveAllFollowsALinkCycleWithParentsAndForwardedTaggedKeys() throws {
            let (root, feature, vendor, partner) = Self.twoTreesLinkedBothWays()
            root.register((any Plugin).self, tag: "x") { _ in NamedPlugin("root-x") }
            root.register((any Plugin).self, tag: "r") { _ in NamedPlugin("root-r") }
            vendor.register(NamedPlugin.self) { _ in NamedPlugin("vendor-impl") }.implements(
                (any Plugin).self, tag: "x")
            partner.register((any Plugin).self, tag: "p") { _ in NamedPlugin("partner-p") }
            feature.register((any Plugin).self, tag: "f") { _ in NamedPlugin("feature-f") }
            for _ in 0..<3 {
                #expect(
                    try feature.resolveAll((any Plugin).self).map(\.name) == [
                        "feature-f", "partner-p", "vendor-impl", "root-r",
                    ])
                #expect(
                    try partner.resolveAll((any Plugin).self).map(\.name) == [
                        "partner-p", "feature-f", "root-x", "root-r",
                    ])
            }
        }

        /// A forwarded key carries the registration's argument types, so resolveAll skips it and resolving it needs them.
        @Test func aForwardOfARegistrationWithArgumentsKeepsThemAndResolveAllSkipsIt() throws {
            let c = Container(name: "c")
            c.register(NamedPlugin.self) { (_, n: Int) in NamedPlugin("args") }.implements((any Plugin).self)
            c.register((any Plugin).self, tag: "t") { _ in NamedPlugin("t") }
            #expect(try c.resolveAll((any Plugin).self).map(\.name) == ["t"])
            let p = try c.resolve((any Plugin).self, tag: nil, arguments: 3)
            #expect(p.name == "args")
        }

        /// Optional<T> with runtime arguments resolves T's key with them, and reports a mismatch about T.
        @Test func anOptionalResolvedWithArgumentsUsesTheWrappedKeyWithThoseArguments() throws {
            let c = Container(name: "c")
            c.register(NamedPlugin.self) { (_, s: String) in NamedPlugin(s) }
            let p = try c.resolve(NamedPlugin?.self, tag: nil, arguments: "x")
            #expect(p?.name == "x")
            let e = try #require(throws: ResolutionError.self) {
                _ = try c.resolve(NamedPlugin?.self, tag: nil, arguments: 1)
            }
            #expect(e.kind.caseName == "argumentMismatch")
            #expect(e.key.typeName == "NamedPlugin")
        }

        /// A registered Optional<T> in the parent wins over T registered in the child.
        @Test func aRegisteredOptionalAnywhereOnTheWalkWinsOverTheWrappedTypeNearer() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            root.register(NamedPlugin?.self) { _ in NamedPlugin("optional") }
            child.register(NamedPlugin.self) { _ in NamedPlugin("plain") }
            #expect(try child.resolve(NamedPlugin?.self)?.name == "optional")
        }

        /// A missing Optional<T>, top-level or inside a factory, throws about T with the whole path.
        @Test func aMissingOptionalReportsTheWrappedKeyWithThePathFromTheTop() throws {
            let c = Container(name: "c")
            c.register(Box.self) { r in
                let b = Box()
                b.dep = try r.resolve()
                return b
            }
            let e = try #require(throws: ResolutionError.self) { _ = try c.resolve(Box.self) }
            #expect(e.kind.caseName == "notRegistered")
            #expect(e.key.typeName == "Dep")
            #expect(e.pathDescriptions == ["Box", "Dep"])
            let top = try #require(throws: ResolutionError.self) { _ = try c.resolve(Dep?.self) }
            #expect(top.key.typeName == "Dep")
            #expect(top.pathDescriptions == ["Dep"])
            #expect(top.searched == ["c"])
        }

        /// A forwarded type whose instance does not conform throws typeMismatch, not nil, asked
        /// for as an optional or through resolveIfRegistered.
        @Test(arguments: [false, true])
        func anOptionalOfAForwardedTypeThatDoesNotConformThrowsTypeMismatch(throughResolveIfRegistered: Bool) throws {
            let c = Container(name: "c")
            c.register(NotService.self) { _ in NotService() }.implements((any Service).self)
            let e = try #require(throws: ResolutionError.self) {
                if throughResolveIfRegistered {
                    _ = try c.resolveIfRegistered((any Service).self)
                } else {
                    _ = try c.resolve((any Service)?.self)
                }
            }
            #expect(e.kind.caseName == "typeMismatch")
        }

        /// Inside a factory (resolver or container), resolveIfRegistered of a registered key with a missing dependency throws with the whole path.
        @Test func resolveIfRegisteredInsideAFactoryThrowsForAMissingKeyDeeperDown() throws {
            let c = Container(name: "c")
            c.register(Top.self) { r in
                _ = try r.resolveIfRegistered(Mid.self)
                return Top()
            }
            c.register(Mid.self, needing: Leaf.self) { Mid() }
            for _ in 0..<3 {
                let e = try #require(throws: ResolutionError.self) { _ = try c.resolve(Top.self) }
                #expect(e.kind.caseName == "notRegistered")
                #expect(e.pathDescriptions == ["Top", "Mid", "Leaf"])
            }
            c.register(Top.self, tag: "viaContainer") { [unowned c] _ in
                _ = try c.resolveIfRegistered(Mid.self)
                return Top()
            }
            let e2 = try #require(throws: ResolutionError.self) { _ = try c.resolve(Top.self, tag: "viaContainer") }
            #expect(e2.pathDescriptions == ["Top[tag: \"viaContainer\"]", "Mid", "Leaf"])
        }

        /// resolveIfRegistered of the key being built is a cycle, not nil.
        @Test func resolveIfRegisteredOfItsOwnKeyInsideAFactoryIsACycle() throws {
            let c = Container(name: "c")
            c.register(Top.self) { r in
                _ = try r.resolveIfRegistered(Top.self)
                return Top()
            }
            let e = try #require(throws: ResolutionError.self) { _ = try c.resolve(Top.self) }
            #expect(e.kind.caseName == "circularDependency")
            #expect(e.pathDescriptions == ["Top", "Top"])
        }
    }

    /// Optionals and resolveAll share the instances of the resolve they join.
    @Suite struct WithinOneResolve: ProbeFixtures {
        /// Optional<T> and T requests of one resolve (factory and block) get one instance, for every sharing lifetime.
        @Test(arguments: [Lifetime.graph, .singleton, .perContainer, .weakSingleton])
        func anOptionalRequestGetsTheInstanceThePlainRequestGot(lifetime: Lifetime) throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            root.register(Dep.self, lifetime: lifetime) { _ in Dep() }
            child.register(Holder.self) { r in
                let h = Holder()
                h.dep = try r.resolve(Dep.self)
                h.optionalDep = try r.resolve(Dep?.self)
                return h
            }.onResolved { r, h in
                let again: Dep? = try r.resolve()
                #expect(again === h.dep)
            }
            for _ in 0..<3 {
                let h = try child.resolve(Holder.self)
                #expect(h.dep === h.optionalDep)
            }
        }

        /// A factory resolving Optional of its own type is a cycle with the path of the wrapped key.
        @Test func anOptionalOfTheKeyBeingBuiltIsACycle() throws {
            let c = Container(name: "c")
            c.register(Top.self) { r in
                _ = try r.resolve(Top?.self)
                return Top()
            }
            let e = try #require(throws: ResolutionError.self) { _ = try c.resolve(Top.self) }
            #expect(e.kind.caseName == "circularDependency")
            #expect(e.pathDescriptions == ["Top", "Top"])
        }

        /// resolveAll through a resolver shares graph instances with later requests of the same resolve.
        @Test func resolveAllInsideAFactorySharesGraphInstancesWithTheResolve() throws {
            let c = Container(name: "c")
            c.register(Dep.self, tag: "a") { _ in Dep() }
            c.register(Dep.self, tag: "b") { _ in Dep() }
            c.register(Holder.self) { r in
                let all = try r.resolveAll(Dep.self)
                #expect(all.count == 2)
                #expect(try r.resolve(Dep.self, tag: "a") === all.first)
                #expect(try r.resolve(Dep.self, tag: "b") === all.last)
                return Holder()
            }
            _ = try c.resolve(Holder.self)
        }

        /// A resolveAll that fails on one registration keeps the complete singletons it built
        /// cached (publication: a complete instance does not wait for the rest of the resolve).
        @Test func aFailedResolveAllKeepsTheCompleteSingletonsItBuilt() throws {
            let c = Container(name: "c")
            let builds = Counter()
            c.register(Dep.self, tag: "a", lifetime: .singleton, counting: builds) { Dep() }
            c.register(Dep.self, tag: "b", lifetime: .singleton) { _ in throw Boom() }
            #expect(throws: ResolutionError.self) { _ = try c.resolveAll(Dep.self) }
            _ = try c.resolve(Dep.self, tag: "a")
            #expect(builds.value == 1)
        }
    }
}
