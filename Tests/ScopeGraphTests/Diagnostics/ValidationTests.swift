import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

// Services of the validated trees. Every name is prefixed with `V` so they do not clash with
// the types of other test files.
private final class VLogger: Sendable {}
private final class VClock: Sendable {}
private final class VCache: Sendable {}
private struct VSettings: Sendable { var verbose = false }
private final class VHelper: Sendable {
    let cache: VCache
    init(cache: VCache) { self.cache = cache }
}
private final class VStore: Sendable {
    let helper: VHelper
    init(helper: VHelper) { self.helper = helper }
}
private final class VCheckout: Sendable {}
private protocol VPaymentGateway: Sendable {}
private final class VReceipt: Sendable {
    let number: Int
    init(number: Int) { self.number = number }
}
private final class VProfile: Sendable {}
private final class VAvatar: Sendable {}
private final class VGreeterImpl: Sendable {}
private protocol VGreeter: Sendable {}
private final class VScreen: Sendable {}
private struct VBrokenFactory: Error, CustomStringConvertible {
    var description: String { "disk is full" }
}

/// Counts factory runs, from any thread.
private final class ValidationRunCounter: @unchecked Sendable {
    // @unchecked: `counts` is only touched with `lock` held.
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func tick(_ name: String) { lock.withLock { counts[name, default: 0] += 1 } }
    subscript(name: String) -> Int { lock.withLock { counts[name, default: 0] } }
}

@Suite struct ValidationTests {
    /// A tree of three containers with one problem of every kind:
    /// app (Logger, Clock, Cache weak, Settings weak value, Store singleton -> Helper graph -> Cache),
    /// checkout (Checkout -> PaymentGateway missing; Receipt needs an Int), profile (a constructor
    /// cycle through two tags, a throwing factory, a forward that does not conform).
    private func brokenTree() -> (app: Container, checkout: Container, profile: Container) {
        let app = Container(name: "app")
        app.register(VLogger.self, lifetime: .singleton) { _ in VLogger() }
        app.register(VClock.self) { _ in VClock() }
        app.register(VCache.self, lifetime: .weakSingleton) { _ in VCache() }
        app.register(VSettings.self, lifetime: .weakSingleton) { _ in VSettings() }
        app.register(VHelper.self) { r in VHelper(cache: try r.resolve()) }
        app.register(VStore.self, lifetime: .singleton) { r in VStore(helper: try r.resolve()) }
        let checkout = app.makeChild(name: "checkout")
        checkout.register(VCheckout.self) { r in
            _ = try r.resolve(VLogger.self)
            _ = try r.resolve((any VPaymentGateway).self)
            return VCheckout()
        }
        checkout.register(VReceipt.self) { (_, number: Int) in VReceipt(number: number) }
        let profile = app.makeChild(name: "profile")
        profile.register(VProfile.self, tag: "a", needing: VProfile.self, tagged: "b") { VProfile() }
        profile.register(VProfile.self, tag: "b", needing: VProfile.self, tagged: "a") { VProfile() }
        profile.register(VAvatar.self) { _ in throw VBrokenFactory() }
        profile.register(VGreeterImpl.self) { _ in VGreeterImpl() }.implements((any VGreeter).self)
        return (app, checkout, profile)
    }

    @Test func findsEveryKindOfProblemInATreeOfSeveralContainers() {
        let tree = brokenTree()
        let report = tree.app.validate()
        #expect(!report.isValid)
        let lines = report.issues.map(\.description)
        #expect(
            lines == [
                "warning [app] VSettings: weakSingleton of a value type (VSettings): it cannot be held weakly and behaves as unique; register it as singleton, or make it a class",
                "warning [app] VStore: singleton holds weakSingleton VCache through VHelper, so VCache never dies while the singleton lives; make VCache a singleton, or resolve it lazily",
                "error [checkout] VCheckout: missing dependency: VCheckout -> VPaymentGateway; nothing is registered for VPaymentGateway (searched: checkout -> app)",
                "warning [checkout] VReceipt(Int): skipped: needs runtime arguments (Int); supply sample values with ValidationOptions.provideArguments(for:_:) and validate(with:)",
                #"error [profile] VProfile[tag: "a"]: circular dependency: VProfile[tag: "a"] -> VProfile[tag: "b"] -> VProfile[tag: "a"]; also breaks VProfile[tag: "b"]"#,
                "error [profile] VAvatar: factory threw: disk is full",
                "error [profile] VGreeterImpl: implements VGreeter, but the instance (VGreeterImpl) does not conform to VGreeter",
            ])
        let missing = report.issues.first { $0.key.typeName == "VCheckout" }
        #expect(missing?.path.map(\.description) == ["VCheckout", "VPaymentGateway"])
        #expect(missing?.severity == .error)
    }

    @Test func descriptionGroupsIssuesByContainer() {
        let tree = brokenTree()
        let report = tree.app.validate()
        let lines = report.description.split(separator: "\n").map(String.init)
        #expect(lines.first == "Validation failed: 4 errors, 3 warnings (12 registrations in 3 containers)")
        #expect(
            lines.filter { $0.hasPrefix("Container ") } == [
                "Container 'app'", "Container 'checkout'", "Container 'profile'",
            ])
        #expect(lines[1] == "Container 'app'")
        #expect(lines[2].hasPrefix("  warning: VSettings: weakSingleton of a value type"))
    }

    @Test func aFailureCausedByAnotherRegistrationIsReportedOnceAtItsCause() {
        let app = Container(name: "app")
        app.register(VScreen.self, needing: VCheckout.self) { VScreen() }
        app.register(VCheckout.self) { r in
            _ = try r.resolve((any VPaymentGateway).self)
            return VCheckout()
        }
        app.register(VStore.self, lifetime: .singleton) { r in
            _ = try r.resolve(VAvatar.self)
            return VStore(helper: VHelper(cache: VCache()))
        }
        app.register(VAvatar.self) { _ in throw VBrokenFactory() }
        let report = app.validate()
        #expect(
            report.issues.map(\.description) == [
                "error [app] VCheckout: missing dependency: VCheckout -> VPaymentGateway; nothing is registered for VPaymentGateway (searched: app); also breaks VScreen",
                "error [app] VAvatar: factory threw: disk is full; also breaks VStore",
            ])
    }

    @Test func aCycleEnteredFromOutsideIsOneIssue() {
        let app = Container(name: "app")
        app.register(VScreen.self, needing: VProfile.self, tagged: "a") { VScreen() }
        app.register(VProfile.self, tag: "a", needing: VProfile.self, tagged: "b") { VProfile() }
        app.register(VProfile.self, tag: "b", needing: VProfile.self, tagged: "a") { VProfile() }
        let errors = app.validate().errors
        #expect(errors.count == 1)
        #expect(
            errors.first?.message
                == #"circular dependency: VProfile[tag: "a"] -> VProfile[tag: "b"] -> VProfile[tag: "a"]; also breaks VScreen, VProfile[tag: "b"]"#
        )
    }

    @Test func singletonsThatDependOnGraphAndUniqueInstancesValidateClean() {
        let app = Container(name: "app")
        app.register(VCache.self, lifetime: .unique) { _ in VCache() }
        app.register(VHelper.self) { r in VHelper(cache: try r.resolve()) }
        app.register(VStore.self, lifetime: .singleton) { r in VStore(helper: try r.resolve()) }
        app.register(VLogger.self, lifetime: .eagerSingleton) { _ in VLogger() }
        let feature = app.makeChild(name: "feature")
        // The child overrides the graph dependency; the root singleton never sees it.
        feature.register(VHelper.self) { _ in VHelper(cache: VCache()) }
        feature.register(VCheckout.self, lifetime: .perContainer, needing: VStore.self) { VCheckout() }
        let report = app.validate()
        #expect(report.issues.isEmpty)
        #expect(report.isValid)
        #expect(report.description == "Validation passed: 6 registrations in 2 containers, no issues")
    }

    @Test func aSingletonCannotSeeItsChildsRegistrations() {
        let app = Container(name: "app")
        app.register(VStore.self, lifetime: .singleton) { r in VStore(helper: try r.resolve()) }
        let feature = app.makeChild(name: "feature")
        feature.register(VHelper.self) { _ in VHelper(cache: VCache()) }
        let report = feature.validate()
        // Validating the child alone does not check the root's registrations.
        #expect(report.isValid)
        let whole = app.validate()
        #expect(whole.errors.map(\.key.typeName) == ["VStore"])
        #expect(
            whole.errors.first?.message.hasPrefix(
                "missing dependency: VStore -> VHelper; nothing is registered for VHelper") == true)
    }

    @Test func warnsWhenASingletonHoldsAWeakSingletonOnlyThroughUncachedIntermediates() {
        let app = Container(name: "app")
        app.register(VCache.self, lifetime: .weakSingleton) { _ in VCache() }
        // Directly, from an eager singleton.
        app.register(VLogger.self, lifetime: .eagerSingleton, needing: VCache.self) { VLogger() }
        // Through a singleton: that singleton gets the warning, not this one.
        app.register(VHelper.self, lifetime: .singleton) { r in VHelper(cache: try r.resolve()) }
        app.register(VStore.self, lifetime: .singleton) { r in VStore(helper: try r.resolve()) }
        // Through onResolved, which holds as much as a factory does.
        app.register(VClock.self, lifetime: .singleton) { _ in VClock() }.onResolved { r, _ in
            _ = try r.resolve(VCache.self)
        }
        // Graph and unique dependents die with their object graph: no warning.
        app.register(VScreen.self, needing: VCache.self) { VScreen() }
        app.register(VAvatar.self, lifetime: .unique, needing: VCache.self) { VAvatar() }
        let report = app.validate()
        #expect(report.isValid)
        #expect(
            report.warnings.map(\.description) == [
                "warning [app] VLogger: eagerSingleton holds weakSingleton VCache, so VCache never dies while the eagerSingleton lives; make VCache a singleton, or resolve it lazily",
                "warning [app] VHelper: singleton holds weakSingleton VCache, so VCache never dies while the singleton lives; make VCache a singleton, or resolve it lazily",
                "warning [app] VClock: singleton holds weakSingleton VCache, so VCache never dies while the singleton lives; make VCache a singleton, or resolve it lazily",
            ])
        #expect(report.warnings.first?.path.map(\.description) == ["VLogger", "VCache"])
    }

    @Test func leavesEveryCacheUntouched() throws {
        let runs = ValidationRunCounter()
        let app = Container(name: "app")
        /// Registers `T` in `app`, its factory's runs counted under `name`.
        func registerCounted<T: Sendable>(_ make: @escaping @Sendable () -> T, _ lifetime: Lifetime, as name: String) {
            app.register(T.self, lifetime: lifetime) { _ in
                runs.tick(name)
                return make()
            }
        }
        registerCounted(VLogger.init, .singleton, as: "logger")
        registerCounted(VClock.init, .singleton, as: "clock")
        registerCounted(VCache.init, .weakSingleton, as: "cache")
        registerCounted(VAvatar.init, .eagerSingleton, as: "avatar")
        let feature = app.makeChild(name: "feature")
        feature.register(VProfile.self, lifetime: .perContainer) { r in
            runs.tick("profile")
            _ = try r.resolve(VLogger.self)
            return VProfile()
        }
        let logger = try app.resolve(VLogger.self)
        let cache = try app.resolve(VCache.self)
        let profile = try feature.resolve(VProfile.self)
        #expect((runs["logger"], runs["clock"], runs["cache"], runs["profile"], runs["avatar"]) == (1, 0, 1, 1, 0))

        #expect(app.validate().isValid)
        // The sandbox built one of each, afresh.
        #expect((runs["logger"], runs["clock"], runs["cache"], runs["profile"], runs["avatar"]) == (2, 1, 2, 2, 1))

        // The app's caches still hold exactly what they held before validation.
        #expect(try app.resolve(VLogger.self) === logger)
        #expect(try app.resolve(VCache.self) === cache)
        #expect(try feature.resolve(VProfile.self) === profile)
        #expect((runs["logger"], runs["cache"], runs["profile"]) == (2, 2, 2))
        // And nothing validation built was kept: these are built now, for the first time.
        _ = try app.resolve(VClock.self)
        #expect(runs["clock"] == 2)
        try app.bootstrap()
        #expect(runs["avatar"] == 2)
        _ = try feature.makeChild(name: "other").resolve(VProfile.self)
        #expect(runs["profile"] == 3, "a new container gets its own perContainer instance")
    }

    @Test func sampleArgumentsLetRegistrationsWithRuntimeArgumentsBeChecked() {
        let seen = ValidationRunCounter()
        let app = Container(name: "app")
        app.register(VReceipt.self) { (r, number: Int, note: String) in
            seen.tick("\(number)-\(note)")
            _ = try r.resolve((any VPaymentGateway).self)
            return VReceipt(number: number)
        }
        #expect(
            app.validate().issues.map(\.message).first?.hasPrefix("skipped: needs runtime arguments (Int, String)")
                == true)

        var options = ValidationOptions()
        options.provideArguments(for: VReceipt.self, 7, "sample")
        options.provideArguments(for: VClock.self, 1.5)
        let report = app.validate(with: options)
        #expect(seen["7-sample"] == 1)
        #expect(
            report.issues.map(\.description) == [
                "error [app] VReceipt(Int, String): missing dependency: VReceipt(Int, String) -> VPaymentGateway; nothing is registered for VPaymentGateway (searched: app)",
                "warning [app] VClock(Double): sample arguments supplied, but no container in the validated tree registers VClock(Double)",
            ])
    }

    @Test func validatingInsideAFactoryDoesNotJoinItsResolve() throws {
        let runs = ValidationRunCounter()
        let app = Container(name: "app")
        let feature = app.makeChild(name: "feature")
        app.register(VClock.self, lifetime: .singleton) { _ in
            runs.tick("clock")
            return VClock()
        }
        feature.register(VScreen.self, needing: VClock.self) { VScreen() }
        app.register(VLogger.self, lifetime: .singleton) { [unowned feature] _ in
            if feature.validate().isValid { runs.tick("valid") }
            return VLogger()
        }
        let first = try app.resolve(VLogger.self)
        #expect(runs["valid"] == 1)
        #expect(runs["clock"] == 1)
        #expect(try app.resolve(VLogger.self) === first)
        _ = try app.resolve(VClock.self)
        #expect(runs["clock"] == 2, "the clock validation built was not cached")
    }
}

// MARK: - The message of each kind of failure a dependency can have

extension ValidationTests {
    /// A dependency registered only with runtime arguments, resolved without them, is reported
    /// as missing, with the reason.
    @Test func aDependencyRegisteredOnlyWithArgumentsIsReportedAsMissing() {
        let app = Container(name: "app")
        app.register(VReceipt.self) { (_, number: Int) in VReceipt(number: number) }
        app.register(VCheckout.self, needing: VReceipt.self) { VCheckout() }
        let errors = app.validate().issues.filter { $0.severity == .error }
        #expect(errors.map(\.key.typeName) == ["VCheckout"])
        #expect(
            errors.first?.message
                == "missing dependency: VCheckout -> VReceipt; VReceipt is registered only with other runtime argument types (searched: app)"
        )
    }

    /// Failures of registrations outside the validated subtree (here in the parent) are
    /// reported at the registration that reached them, with the path, since their own
    /// registration is not validated: a throwing factory and a forward that does not conform.
    @Test func aFailureOutsideTheValidatedSubtreeIsReportedWithItsPath() {
        let app = Container(name: "app")
        app.register(VCache.self) { _ in throw VBrokenFactory() }
        app.register(VGreeterImpl.self) { _ in VGreeterImpl() }.implements((any VGreeter).self)
        let feature = app.makeChild(name: "feature")
        feature.register(VHelper.self) { r in VHelper(cache: try r.resolve()) }
        feature.register(VScreen.self) { r in
            _ = try r.resolve((any VGreeter).self)
            return VScreen()
        }
        let report = feature.validate()
        #expect(report.issues.allSatisfy { $0.severity == .error && $0.container == "feature" })
        #expect(
            report.issues.map(\.message) == [
                "factory of VCache threw: disk is full (path: VHelper -> VCache)",
                "type mismatch: VScreen -> VGreeter; the VGreeterImpl registration in 'app' answers VGreeter through implements(_:), but its factory returned an instance of VGreeterImpl, which does not conform to VGreeter; make VGreeterImpl conform, or remove that implements call",
            ])
    }
}

// MARK: Validation: caches of every lifetime, every problem, weak singletons held through forwards and blocks

extension ValidationTests {
    /// validate leaves weak and perContainer caches alone, reports every problem, and follows forwards and blocks.
    @Suite struct Combined: ProbeFixtures {
        /// validate leaves a live weakSingleton, a child's perContainer instance and an unbuilt singleton as they were.
        @Test func validateLeavesWeakAndPerContainerInstancesAndUnbuiltSingletonsAlone() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let builds = Counter()
            root.register(Impl.self, lifetime: .weakSingleton) { _ in Impl() }
            root.register(Dep.self, lifetime: .perContainer) { _ in Dep() }
            root.register(Top.self, lifetime: .singleton, counting: builds) { Top() }
            let weakOne = try child.resolve(Impl.self)
            let perChild = try child.resolve(Dep.self)
            let report = root.validate()
            #expect(report.isValid)
            #expect(try child.resolve(Impl.self) === weakOne)
            #expect(try child.resolve(Dep.self) === perChild)
            let validated = builds.value
            _ = try child.resolve(Top.self)
            #expect(builds.value == validated + 1)
        }

        /// validate reports a missing dependency in each container, a factory error, a cycle and a non-conforming forward.
        @Test func validateReportsEveryKindOfErrorInOneTree() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            root.register(Top.self, needing: Leaf.self) { Top() }
            child.register(Mid.self, needing: Dep.self) { Mid() }
            child.register(NotService.self) { _ in NotService() }.implements((any Service).self)
            child.register(Box.self) { _ in throw Boom() }
            child.register(Impl.self, lifetime: .singleton, needing: Impl.self) { Impl() }
            let report = root.validate()
            #expect(!report.isValid)
            let errors = report.issues.filter { $0.severity == .error }.map(\.key.typeName)
            #expect(errors.contains("Top"))
            #expect(errors.contains("Mid"))
            #expect(errors.contains("Box"))
            #expect(errors.contains("Impl"))
            #expect(errors.contains { $0.contains("NotService") || $0.contains("Service") })
        }
    }

    /// A singleton holding a weakSingleton through a forward or a block is warned.
    @Suite struct WeakHeld: ProbeFixtures {
        /// singleton and eagerSingleton that resolve a weakSingleton through a forward or in onResolved are warned.
        @Test(arguments: [Lifetime.singleton, .eagerSingleton])
        func aSingletonHoldingAWeakSingletonThroughAForwardOrABlockIsWarned(lifetime: Lifetime) throws {
            let c = Container(name: "c")
            c.register(Impl.self, lifetime: .weakSingleton) { _ in Impl() }.implements((any Service).self)
            c.register(Holder.self, lifetime: lifetime) { r in
                let h = Holder()
                h.service = try r.resolve((any Service).self)
                return h
            }
            c.register(Top.self, lifetime: lifetime) { _ in Top() }
            let report = c.validate()
            #expect(report.isValid)
            #expect(report.issues.contains { $0.severity == .warning && $0.key.typeName == "Holder" })
            let c2 = Container(name: "c2")
            c2.register(Impl.self, lifetime: .weakSingleton) { _ in Impl() }
            c2.register(Holder.self, lifetime: lifetime) { _ in Holder() }.onResolved { r, h in h.impl = try r.resolve()
            }
            let report2 = c2.validate()
            #expect(report2.issues.contains { $0.severity == .warning && $0.key.typeName == "Holder" })
        }
    }
}

// MARK: Contract probes: every problem, no registration changes, severities

extension ValidationTests {
    /// `validate()` against the contract's sentences, on the shared probe fixtures.
    @Suite struct ContractProbes: ProbeFixtures {
        /// "Reports every problem, not just the first", within one registration too: a
        /// registration forwarded to two types it does not conform to gets both reported.
        @Test func everyNonConformingForwardOfOneRegistrationIsReported() {
            let c = Container(name: "c")
            c.register(NotService.self) { _ in NotService() }
                .implements((any Service).self)
                .implements((any Plugin).self)
            let messages = c.validate().issues.filter { $0.severity == .error }.map(\.message)
            #expect(messages.contains { $0.contains("Service") }, "\(messages)")
            #expect(messages.contains { $0.contains("Plugin") }, "\(messages)")
        }

        /// A singleton that holds two weak singletons: both are named by the warnings.
        @Test func aSingletonHoldingTwoWeakSingletonsIsWarnedAboutBoth() {
            let c = Container(name: "c")
            c.register(Dep.self, lifetime: .weakSingleton) { _ in Dep() }
            c.register(Leaf.self, lifetime: .weakSingleton) { _ in Leaf() }
            c.register(Top.self, lifetime: .singleton) { r in
                _ = try r.resolve(Dep.self)
                _ = try r.resolve(Leaf.self)
                return Top()
            }
            let report = c.validate()
            #expect(report.isValid)
            let warnings = report.issues.filter { $0.severity == .warning && $0.key.typeName == "Top" }
            #expect(warnings.contains { $0.message.contains("weakSingleton Dep") }, "\(warnings)")
            #expect(warnings.contains { $0.message.contains("weakSingleton Leaf") }, "\(warnings)")
        }

        /// Warnings alone leave the report valid; one error makes it invalid. A skipped
        /// registration's issue carries its full key (tag and argument types) and the name of
        /// its owner, a grandchild here.
        @Test func onlyAnErrorMakesAReportInvalidAndIssuesNameTheirOwnerAndFullKey() throws {
            let root = Container(name: "root")
            let grandchild = root.makeChild(name: "child").makeChild(name: "grandchild")
            grandchild.register(Value.self, tag: "sized") { (_, id: Int, label: String) in Value(id: id) }
            grandchild.register(Value.self, tag: "weak", lifetime: .weakSingleton) { _ in Value(id: 0) }
            let warningsOnly = root.validate()
            #expect(warningsOnly.isValid)
            #expect(warningsOnly.issues.count == 2)
            #expect(warningsOnly.issues.allSatisfy { $0.severity == .warning && $0.container == "grandchild" })
            let skipped = try #require(warningsOnly.issues.first)
            #expect(skipped.key == ServiceKey(typeName: "Value", tag: "sized", argumentTypeNames: ["Int", "String"]))
            #expect(skipped.message.contains("skipped"))
            #expect(warningsOnly.issues.last?.key == ServiceKey(typeName: "Value", tag: "weak"))

            grandchild.register(Top.self, needing: Mid.self) { Top() }
            let withError = root.validate()
            #expect(!withError.isValid)
            #expect(withError.issues.filter { $0.severity == .error }.map(\.key) == [ServiceKey(typeName: "Top")])
        }

        /// An `eagerSingleton` that holds a `weakSingleton` is warned (one warning, on the
        /// eager singleton), as a `singleton` is.
        @Test func anEagerSingletonHoldingAWeakSingletonIsWarned() {
            let c = Container(name: "c")
            c.register(Dep.self, lifetime: .weakSingleton) { _ in Dep() }
            c.register(Top.self, lifetime: .eagerSingleton, needing: Dep.self) { Top() }
            let warnings = c.validate().issues
            #expect(warnings.map(\.key.typeName) == ["Top"])
            #expect(warnings.first?.severity == .warning)
            #expect(warnings.first?.message.contains("weakSingleton Dep") == true)
        }

        /// No registration changes: the description, the lookups and a handle's `remove` work as
        /// before, and `bootstrap()` after `validate()` still builds the eager singleton (once).
        @Test func validateChangesNoRegistrationAndLeavesBootstrapToBuild() throws {
            let c = Container(name: "c")
            let builds = Counter()
            let eager = c.register(Top.self, lifetime: .eagerSingleton) { _ in
                builds.increment()
                return Top()
            }
            c.register(Impl.self) { _ in Impl() }.implements((any Service).self)
            c.register(Value.self) { (_, id: Int) in Value(id: id) }
            let description = c.description
            _ = c.validate()
            _ = c.dependencyGraph()
            #expect(c.description == description)
            let afterDryRuns = builds.value
            #expect(afterDryRuns >= 1, "validation ran the factory in its sandbox")
            try c.bootstrap()
            #expect(builds.value == afterDryRuns + 1, "bootstrap built the eager singleton for real")
            try c.bootstrap()
            #expect(builds.value == afterDryRuns + 1)
            #expect(try c.resolve((any Service).self) is Impl)
            #expect(try c.resolve(Value.self, tag: nil, arguments: 3).id == 3)
            c.remove(eager)
            #expect(try c.resolveIfRegistered(Top.self) == nil)
        }

        /// A tree whose singletons (also eager, also in a child) depend on `graph` and `unique`
        /// instances, including through a perContainer one and a forwarded type, validates clean.
        @Test func singletonsOverGraphUniqueAndPerContainerValidateClean() {
            let root = Container(name: "root")
            root.register(Leaf.self, lifetime: .unique) { _ in Leaf() }
            root.register(Impl.self, needing: Leaf.self) { Impl() }
                .implements((any Service).self)
            root.register(Mid.self, lifetime: .perContainer) { r in
                _ = try r.resolve((any Service).self)
                return Mid()
            }
            let child = root.makeChild(name: "child")
            child.register(Top.self, lifetime: .eagerSingleton) { r in
                _ = try r.resolve(Mid.self)
                _ = try r.resolve(Leaf.self)
                return Top()
            }
            child.register(Dep.self, lifetime: .singleton) { r in
                _ = try r.resolve((any Service).self)
                return Dep()
            }
            let report = root.validate()
            #expect(report.isValid)
            #expect(report.issues.isEmpty, "\(report)")
        }

        /// An optional dependency (`resolveIfRegistered`, `try?`) that is absent is no problem:
        /// the real resolve succeeds, so the report stays clean. A throwing `onResolved` block is
        /// a factory error of its registration.
        @Test func anAbsentOptionalDependencyIsCleanAndAThrowingBlockIsAnError() throws {
            let c = Container(name: "c")
            c.register(Top.self) { r in
                _ = try r.resolveIfRegistered(Mid.self)
                _ = try? r.resolve(Leaf.self)
                return Top()
            }
            _ = try c.resolve(Top.self)
            #expect(c.validate().issues.isEmpty)

            c.register(Box.self) { _ in Box() }.onResolved { _, _ in throw Boom("block") }
            let report = c.validate()
            #expect(!report.isValid)
            #expect(report.issues.map(\.key.typeName) == ["Box"])
            #expect(report.issues.first?.severity == .error)
        }

        /// Nothing the dry run builds is stored in any container's cache, also a container outside
        /// the validated tree that a factory or a block resolves from directly (on the same
        /// thread, so joining the dry run).
        @Test func aSingletonOfAnotherContainerResolvedInAFactoryIsNotCachedByTheDryRun() throws {
            let other = Container(name: "other")
            let builds = Counter()
            other.register(Dep.self, lifetime: .singleton, counting: builds) { Dep() }
            let c = Container(name: "c")
            c.register(Top.self) { _ in
                _ = try other.resolve(Dep.self)
                return Top()
            }
            c.register(Box.self) { _ in Box() }.onResolved { _, box in box.dep = try other.resolve(Dep.self) }
            #expect(c.validate().isValid)
            _ = c.dependencyGraph()
            let afterDryRuns = builds.value
            #expect(afterDryRuns >= 1)
            _ = try other.resolve(Dep.self)
            #expect(builds.value == afterDryRuns + 1, "the real resolve built the singleton: nothing was cached")
        }
    }
}
