import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Errors: one `ResolutionError` about the deepest cause with the whole path, never wrapped
/// per level; a failed resolve caches nothing partly built; the description is actionable.
@Suite struct ErrorTests {
    final class App: Sendable {}
    final class Checkout: Sendable {}
    final class Payments: Sendable {}
    final class Gateway: Sendable {}
    final class Analytics: @unchecked Sendable {
        // @unchecked: set once by an onResolved block before the resolve returns.
        var ready = false
    }

    /// App -> Checkout -> Payments -> Gateway, every one built through the resolver.
    private func registerChain(in container: Container, lifetime: Lifetime = .graph) {
        container.register(App.self, lifetime: lifetime, needing: Checkout.self) { App() }
        container.register(Checkout.self, lifetime: lifetime, needing: Payments.self) { Checkout() }
        container.register(Payments.self, lifetime: lifetime, needing: Gateway.self) { Payments() }
    }

    // MARK: The deepest cause

    @Test func aMissingDependencyDeepInAGraphIsReportedOnceWithTheWholePath() throws {
        let container = Container(name: "root")
        registerChain(in: container)
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(App.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.key == ServiceKey(typeName: "Gateway"))
        #expect(error.pathDescriptions == ["App", "Checkout", "Payments", "Gateway"])
        #expect(error.searched == ["root"])
    }

    @Test(arguments: [false, true])
    func aChainDeeperThanAFewLevelsKeepsItsWholePath(closesACycle: Bool) throws {
        // Twenty nested constructions: more frames than a resolve starts with room for.
        let container = Container(name: "root")
        let depth = 20
        for level in 0..<depth {
            let next = level + 1 < depth ? level + 1 : (closesACycle ? 0 : depth)
            container.register(Payments.self, tag: ServiceTag("level-\(level)"), lifetime: .unique) { r in
                _ = try r.resolve(Payments.self, tag: ServiceTag("level-\(next)"))
                return Payments()
            }
        }
        let error = try #require(throws: ResolutionError.self) {
            _ = try container.resolve(Payments.self, tag: "level-0")
        }
        let levels = (0...depth).map { "Payments[tag: \"level-\(closesACycle && $0 == depth ? 0 : $0)\"]" }
        #expect(error.kind.caseName == (closesACycle ? "circularDependency" : "notRegistered"))
        #expect(error.pathDescriptions == levels)
    }

    @Test func aTopLevelMissingKeyHasAPathOfItself() throws {
        let container = Container(name: "root")
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Gateway.self, tag: "eu") }
        #expect(error.key == ServiceKey(typeName: "Gateway", tag: "eu"))
        #expect(error.pathDescriptions == ["Gateway[tag: \"eu\"]"])
    }

    @Test func aThrowingFactorySurfacesOnceAsFactoryFailedWithTheUnderlyingError() throws {
        let container = Container(name: "root")
        registerChain(in: container)
        container.register(Gateway.self) { _ in throw Boom("gateway offline") }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(App.self) }
        #expect(error.kind.caseName == "factoryFailed")
        let underlying = try #require(error.kind.underlyingError)
        #expect(underlying as? Boom == Boom("gateway offline"))
        #expect(!(underlying is ResolutionError))
        #expect(error.key == ServiceKey(typeName: "Gateway"))
        #expect(error.pathDescriptions == ["App", "Checkout", "Payments", "Gateway"])
    }

    @Test func aFactoryThatRethrowsADependencysErrorDoesNotWrapIt() throws {
        let container = Container(name: "root")
        container.register(Gateway.self) { _ in throw Boom() }
        container.register(Payments.self) { r in
            do {
                _ = try r.resolve(Gateway.self)
            } catch {
                throw error
            }
            return Payments()
        }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Payments.self) }
        #expect(error.kind.caseName == "factoryFailed")
        #expect(error.kind.underlyingError is Boom)
        #expect(error.key.typeName == "Gateway")
        #expect(error.pathDescriptions == ["Payments", "Gateway"])
    }

    @Test func aFailureUnderAnOwnerRootedSingletonKeepsTheWholePath() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        registerChain(in: root, lifetime: .singleton)
        let error = try #require(throws: ResolutionError.self) { _ = try child.resolve(App.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.pathDescriptions == ["App", "Checkout", "Payments", "Gateway"])
        #expect(error.searched == ["root"])
    }

    @Test func aTypeMismatchReportsTheForwardedKeyAndPath() throws {
        let container = Container(name: "root")
        container.register(Payments.self) { _ in Payments() }.implements(Gateway.self)
        container.register(Checkout.self, needing: Gateway.self) { Checkout() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Checkout.self) }
        #expect(error.kind.caseName == "typeMismatch")
        #expect(error.key == ServiceKey(typeName: "Gateway"))
        #expect(error.pathDescriptions == ["Checkout", "Gateway"])
    }

    // MARK: Nothing half-built is cached

    @Test(arguments: [Lifetime.singleton, .perContainer, .weakSingleton, .eagerSingleton])
    func aFailedResolveCachesNothingOnItsPathAndTheNextResolveRetries(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        let appRuns = Counter()
        let checkoutRuns = Counter()
        let gatewayAttempts = Counter()
        container.register(App.self, lifetime: lifetime, needing: Checkout.self, counting: appRuns) { App() }
        container.register(Checkout.self, lifetime: lifetime, needing: Gateway.self, counting: checkoutRuns) {
            Checkout()
        }
        container.register(Gateway.self) { _ in
            if gatewayAttempts.increment() == 1 { throw Boom("first attempt") }
            return Gateway()
        }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(App.self) }
        // Checkout first, held strongly, so that a weakSingleton is still alive for App.
        let checkout = try container.resolve(Checkout.self)
        let app = try container.resolve(App.self)
        #expect(appRuns.value == 2)
        #expect(checkoutRuns.value == 2)
        withExtendedLifetime((app, checkout)) {}
    }

    @Test func aCompletedDependencyWhoseBlocksNeverRanIsNotCached() throws {
        // Analytics is built, but the resolve fails before its onResolved block runs.
        let container = Container(name: "root")
        let analyticsRuns = Counter()
        let gatewayAttempts = Counter()
        container.register(Analytics.self, lifetime: .singleton, counting: analyticsRuns) { Analytics() }
            .onResolved { _, analytics in analytics.ready = true }
        container.register(Gateway.self) { _ in
            if gatewayAttempts.increment() == 1 { throw Boom() }
            return Gateway()
        }
        container.register(App.self) { r in
            _ = try r.resolve(Analytics.self)
            _ = try r.resolve(Gateway.self)
            return App()
        }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(App.self) }
        let analytics = try container.resolve(Analytics.self)
        #expect(analytics.ready)
        #expect(analyticsRuns.value == 2)
    }

    @Test func aFailedResolveLeavesEarlierCachedInstancesAlone() throws {
        let container = Container(name: "root")
        let gatewayRuns = Counter()
        container.register(Gateway.self, lifetime: .singleton, counting: gatewayRuns) { Gateway() }
        container.register(App.self) { r in
            _ = try r.resolve(Gateway.self)
            throw Boom()
        }
        let gateway = try container.resolve(Gateway.self)
        #expect(throws: ResolutionError.self) { _ = try container.resolve(App.self) }
        #expect(try container.resolve(Gateway.self) === gateway)
        #expect(gatewayRuns.value == 1)
    }

    // MARK: Suggestions

    @Test func theSameKeyInAnUnlinkedSiblingIsSuggested() throws {
        let (_, checkout, payments) = Container.rootWithTwoChildren("checkout", "payments")
        payments.register(Gateway.self) { _ in Gateway() }
        let error = try #require(throws: ResolutionError.self) { _ = try checkout.resolve(Gateway.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.searched == ["checkout", "root"])
        #expect(error.suggestions.contains { $0.contains("payments") }, "suggestions: \(error.suggestions)")
        #expect(error.description.contains("payments"))
    }

    @Test func theStartingChildIsSuggestedWhenAnOwnerRootedSingletonCannotSeeIt() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        root.register(Payments.self, lifetime: .singleton, needing: Gateway.self) { Payments() }
        feature.register(Gateway.self) { _ in Gateway() }
        let error = try #require(throws: ResolutionError.self) { _ = try feature.resolve(Payments.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.key.typeName == "Gateway")
        #expect(error.pathDescriptions == ["Payments", "Gateway"])
        #expect(error.searched == ["root"])
        #expect(error.suggestions.contains { $0.contains("feature") }, "suggestions: \(error.suggestions)")
    }

    @Test func anotherTagIsSuggested() throws {
        let container = Container(name: "root")
        container.register(Gateway.self, tag: "eu") { _ in Gateway() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Gateway.self, tag: "us") }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.suggestions.contains { $0.contains("\"eu\"") }, "suggestions: \(error.suggestions)")
    }

    @Test func otherArgumentTypesAreSuggested() throws {
        let container = Container(name: "root")
        container.register(Gateway.self) { (_, region: String, retries: Int) in Gateway() }
        let error = try #require(throws: ResolutionError.self) {
            _ = try container.resolve(Gateway.self, tag: nil, arguments: 3)
        }
        #expect(error.kind.caseName == "argumentMismatch")
        #expect(error.hasASuggestionNaming("String", "Int"), "suggestions: \(error.suggestions)")
    }

    @Test func suggestionsComeFromEveryContainerTheWalkVisits() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let partner = Container(name: "partner")
        feature.collaborate(with: partner)
        partner.register(Gateway.self, tag: "partner-tag") { _ in Gateway() }
        root.register(Gateway.self, tag: "root-tag") { _ in Gateway() }
        let error = try #require(throws: ResolutionError.self) { _ = try feature.resolve(Gateway.self) }
        #expect(error.searched == ["feature", "partner", "root"])
        #expect(error.suggestions.contains { $0.contains("partner-tag") }, "suggestions: \(error.suggestions)")
        #expect(error.suggestions.contains { $0.contains("root-tag") }, "suggestions: \(error.suggestions)")
    }

    // MARK: Description

    @Test func theDescriptionOfAResolveFailureNamesEverythingNeededToFixIt() throws {
        let root = Container(name: "app-root")
        let feature = root.makeChild(name: "orders")
        let partner = Container(name: "billing")
        feature.collaborate(with: partner)
        partner.register(Gateway.self, tag: "eu") { (_, id: Int) in Gateway() }
        feature.register(Checkout.self) { r in
            _ = try r.resolve(Gateway.self, tag: "eu", arguments: "wrong")
            return Checkout()
        }
        let error = try #require(throws: ResolutionError.self) { _ = try feature.resolve(Checkout.self) }
        let text = error.description
        for fragment in ["Gateway", "\"eu\"", "String", "Checkout", "orders", "billing", "app-root", "Int"] {
            #expect(text.contains(fragment), "missing \(fragment) in:\n\(text)")
        }
        #expect(text.split(separator: "\n").count > 1)
    }

    @Test func theDescriptionOfAFactoryFailureNamesTheUnderlyingError() throws {
        let container = Container(name: "root")
        registerChain(in: container)
        container.register(Gateway.self) { _ in throw Boom("gateway offline") }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(App.self) }
        for fragment in ["gateway offline", "App", "Checkout", "Payments", "Gateway"] {
            #expect(error.description.contains(fragment), "missing \(fragment) in:\n\(error.description)")
        }
    }

    @Test func theDescriptionOfACycleShowsThePath() throws {
        let container = Container(name: "root")
        container.register(App.self, needing: Checkout.self) { App() }
        container.register(Checkout.self, needing: App.self) { Checkout() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(App.self) }
        let pathLine = error.description.split(separator: "\n").first { line in
            guard let app = line.range(of: "App"), let checkout = line.range(of: "Checkout") else { return false }
            return app.lowerBound < checkout.lowerBound && line[checkout.upperBound...].contains("App")
        }
        #expect(pathLine != nil, "no line shows App, Checkout, App in order:\n\(error.description)")
    }

    struct DescriptionCase: Sendable, CustomTestStringConvertible {
        let kind: ResolutionError.Kind
        let fragments: [String]
        var testDescription: String { kind.caseName }
    }

    @Test(arguments: [
        DescriptionCase(kind: .notRegistered, fragments: []),
        DescriptionCase(kind: .circularDependency, fragments: []),
        DescriptionCase(kind: .argumentMismatch, fragments: []),
        DescriptionCase(kind: .typeMismatch, fragments: []),
        DescriptionCase(kind: .factoryFailed(Boom("disk full")), fragments: ["disk full"]),
    ])
    func aConstructedErrorDescribesItsKeyPathSearchAndSuggestions(testCase: DescriptionCase) {
        let key = ServiceKey(typeName: "Store", tag: "cold", argumentTypeNames: ["Int", "String"])
        let error = ResolutionError(
            kind: testCase.kind, key: key,
            path: [ServiceKey(typeName: "Shop"), key],
            searched: ["shop-feature", "app"],
            suggestions: ["register Store in app"])
        let text = error.description
        for fragment in ["Store", "\"cold\"", "Int", "String", "Shop", "shop-feature", "app", "register Store in app"]
            + testCase.fragments
        {
            #expect(text.contains(fragment), "missing \(fragment) in:\n\(text)")
        }
        #expect(error.suggestions == ["register Store in app"])
    }

    @Test(arguments: [
        (ResolutionError.Kind.notRegistered, "notRegistered"),
        (.circularDependency, "circularDependency"),
        (.argumentMismatch, "argumentMismatch"),
        (.typeMismatch, "typeMismatch"),
    ])
    func aKindDescribesItselfByItsCaseName(kind: ResolutionError.Kind, name: String) {
        #expect(kind.description == name)
    }

    @Test func theFactoryFailedKindNamesItsUnderlyingError() {
        let kind = ResolutionError.Kind.factoryFailed(Boom("disk full"))
        #expect(kind.description.hasPrefix("factoryFailed"))
        #expect(kind.description.contains("disk full"))
    }

    /// A type registered under many tags in a big tree does not turn one error into a page.
    @Test func suggestionsAreCappedWithACountOfTheRest() throws {
        let container = Container(name: "root")
        for index in 0..<30 { container.register(Int.self, tag: ServiceTag("t\(index)")) { _ in index } }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Int.self) }
        #expect(error.suggestions.count == 8)
        #expect(error.suggestions.last?.contains("23 more close matches") == true)
        #expect(error.suggestions.first?.contains("t0") == true)
    }
}

// MARK: Nested failures: kind, path, searched and suggestions of the deepest cause

extension ErrorTests {
    /// argumentMismatch, searched order through link cycles, suggestions for siblings and owner-rooted singletons.
    @Suite struct NestedFailures: ProbeFixtures {
        /// A dependency resolved without its registered arguments fails with argumentMismatch about it, naming them.
        @Test func aNestedArgumentMismatchIsReportedAboutTheDependencyWithItsArguments() throws {
            let c = Container(name: "c")
            c.register(Top.self, needing: Mid.self) { Top() }
            c.register(Mid.self) { (_, n: Int, s: String) in Mid() }
            let e = try #require(throws: ResolutionError.self) { _ = try c.resolve(Top.self) }
            #expect(e.kind.caseName == "argumentMismatch")
            #expect(e.pathDescriptions == ["Top", "Mid"])
            #expect(e.suggestions.contains { $0.contains("Mid(Int, String)") })
        }

        /// A deep missing key lists the containers of its lookup in walk order, from either end of a link cycle.
        @Test func aDeepMissingKeyListsTheContainersOfTheLastLookupInWalkOrder() throws {
            let (root, feature, vendor, partner) = Self.twoTreesLinkedBothWays()
            root.register(Top.self, needing: Mid.self) { Top() }
            vendor.register(Mid.self, needing: Leaf.self) { Mid() }
            let e = try #require(throws: ResolutionError.self) { _ = try feature.resolve(Top.self) }
            #expect(e.pathDescriptions == ["Top", "Mid", "Leaf"])
            #expect(e.searched == ["feature", "partner", "vendor", "root"])
            let e2 = try #require(throws: ResolutionError.self) { _ = try partner.resolve(Top.self) }
            #expect(e2.searched == ["partner", "feature", "root", "vendor"])
        }

        /// An unlinked sibling registering the type under another tag is suggested, saying the tag differs.
        @Test func anUnlinkedSiblingWithAnotherTagIsSuggestedAsDifferingToo() throws {
            let (_, cart, metrics) = Container.rootWithTwoChildren("cart", "metrics")
            metrics.register(Dep.self, tag: "x") { _ in Dep() }
            let e = try #require(throws: ResolutionError.self) { _ = try cart.resolve(Dep.self) }
            #expect(e.suggestions.contains { $0.contains("'metrics'") && $0.contains("differ") })
        }

        /// A key missing under an owner-rooted singleton, through a graph intermediate, suggests the child.
        @Test func theStartingChildIsSuggestedForAMissingKeyBelowAnOwnerRootedSingleton() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            child.register(Top.self, needing: Mid.self) { Top() }
            root.register(Mid.self, lifetime: .singleton, needing: Leaf.self) { Mid() }
            root.register(Leaf.self, needing: Dep.self) { Leaf() }
            child.register(Dep.self) { _ in Dep() }
            let e = try #require(throws: ResolutionError.self) { _ = try child.resolve(Top.self) }
            #expect(e.pathDescriptions == ["Top", "Mid", "Leaf", "Dep"])
            #expect(e.searched == ["root"])
            #expect(e.suggestions.contains { $0.contains("'child'") })
        }

        /// A throwing factory under perContainer, singleton and weakSingleton levels surfaces once, about its key.
        @Test func aFactoryFailureUnderMixedLifetimesIsReportedOnceAboutItsKey() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            child.register(Top.self, lifetime: .perContainer, needing: Mid.self) { Top() }
            root.register(Mid.self, lifetime: .singleton, needing: Leaf.self) { Mid() }
            root.register(Leaf.self, lifetime: .weakSingleton) { _ in throw Boom("deep") }
            let e = try #require(throws: ResolutionError.self) { _ = try child.resolve(Top.self) }
            #expect(e.kind.underlyingError as? Boom == Boom("deep"))
            #expect(e.key.typeName == "Leaf")
            #expect(e.pathDescriptions == ["Top", "Mid", "Leaf"])
        }
    }
}
