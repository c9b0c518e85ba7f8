import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Type forwarding with `implements`: the same instance wherever the lifetime shares it,
/// `typeMismatch` for a non-conforming instance, tags on forwarded keys.
@Suite struct ForwardingTests {
    protocol Logging: AnyObject, Sendable {}
    protocol Tracing: AnyObject, Sendable {}
    protocol Unrelated {}
    final class ConsoleLogger: Logging, Tracing, Sendable {}
    final class FileLogger: Logging, Sendable {}

    /// Resolves the implementation and the forwarded type within one top-level resolve.
    struct Both {
        let concrete: ConsoleLogger
        let forwarded: any Logging
    }

    @Test func aForwardedTypeResolvesToTheRegisteredInstance() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self) { _ in ConsoleLogger() }.implements((any Logging).self)
        let logger: any Logging = try container.resolve()
        #expect(logger is ConsoleLogger)
    }

    @Test(arguments: [Lifetime.singleton, .weakSingleton, .eagerSingleton, .perContainer])
    func cachedLifetimesGiveTheSameInstanceThroughEveryType(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(ConsoleLogger.self, lifetime: lifetime, counting: runs) { ConsoleLogger() }
            .implements((any Logging).self)
            .implements((any Tracing).self)
        let concrete = try container.resolve(ConsoleLogger.self)
        let logging = try container.resolve((any Logging).self)
        let tracing = try container.resolve((any Tracing).self)
        #expect(logging === concrete)
        #expect(tracing === concrete)
        #expect(runs.value == 1)
    }

    @Test func aGraphInstanceIsSharedThroughEveryTypeWithinOneResolve() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self) { _ in ConsoleLogger() }.implements((any Logging).self)
        container.register(Both.self) { r in Both(concrete: try r.resolve(), forwarded: try r.resolve()) }
        let both = try container.resolve(Both.self)
        #expect(both.forwarded === both.concrete)
        let again = try container.resolve(Both.self)
        #expect(again.concrete !== both.concrete)
    }

    @Test func aUniqueRegistrationGivesANewInstanceThroughEveryType() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self, lifetime: .unique) { _ in ConsoleLogger() }
            .implements((any Logging).self)
        container.register(Both.self) { r in Both(concrete: try r.resolve(), forwarded: try r.resolve()) }
        let both = try container.resolve(Both.self)
        #expect(both.forwarded !== both.concrete)
    }

    @Test func aNonConformingInstanceThrowsTypeMismatch() throws {
        let container = Container(name: "root")
        container.register(FileLogger.self) { _ in FileLogger() }.implements((any Tracing).self)
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve((any Tracing).self) }
        #expect(error.kind.caseName == "typeMismatch")
        #expect(error.key.typeName == String(describing: (any Tracing).self))
        // The registration's own type still resolves.
        _ = try container.resolve(FileLogger.self)
    }

    @Test func aValueThatDoesNotConformThrowsTypeMismatch() throws {
        let container = Container(name: "root")
        container.register(Int.self) { _ in 42 }.implements(String.self)
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(String.self) }
        #expect(error.kind.caseName == "typeMismatch")
        #expect(error.key == ServiceKey(typeName: "String"))
        #expect(
            error.suggestions == [
                "the Int registration in 'root' answers String through implements(_:), but its factory returned an instance of Int, which does not conform to String; make Int conform, or remove that implements call"
            ])
    }

    @Test func aForwardCanCarryATag() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            .implements((any Logging).self, tag: "console")
        container.register(FileLogger.self, lifetime: .singleton) { _ in FileLogger() }
            .implements((any Logging).self, tag: "file")
        #expect(try container.resolve((any Logging).self, tag: "console") === container.resolve(ConsoleLogger.self))
        #expect(try container.resolve((any Logging).self, tag: "file") === container.resolve(FileLogger.self))
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve((any Logging).self) }
        #expect(error.kind.caseName == "notRegistered")
    }

    @Test func aTaggedRegistrationForwardsUntaggedUnlessATagIsGiven() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self, tag: "main", lifetime: .singleton) { _ in ConsoleLogger() }
            .implements((any Logging).self)
        let logger = try container.resolve((any Logging).self)
        #expect(try logger === container.resolve(ConsoleLogger.self, tag: "main"))
        #expect(throws: ResolutionError.self) { _ = try container.resolve((any Logging).self, tag: "main") }
    }

    @Test func aForwardIsVisibleFromChildren() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }.implements((any Logging).self)
        #expect(try child.resolve((any Logging).self) === root.resolve(ConsoleLogger.self))
    }

    @Test func replacingARegistrationDropsItsForwards() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self) { _ in ConsoleLogger() }.implements((any Logging).self)
        container.register(ConsoleLogger.self) { _ in ConsoleLogger() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve((any Logging).self) }
        #expect(error.kind.caseName == "notRegistered")
    }

    @Test func aLaterRegistrationOfTheForwardedKeyReplacesTheForward() throws {
        let container = Container(name: "root")
        container.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }
            .implements((any Logging).self)
        container.register((any Logging).self) { _ in FileLogger() }
        #expect(try container.resolve((any Logging).self) is FileLogger)
        _ = try container.resolve(ConsoleLogger.self)
    }

    @Test func removeDropsTheRegistrationsForwards() throws {
        let container = Container(name: "root")
        let registration = container.register(ConsoleLogger.self) { _ in ConsoleLogger() }
            .implements((any Logging).self)
        container.remove(registration)
        #expect(throws: ResolutionError.self) { _ = try container.resolve((any Logging).self) }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(ConsoleLogger.self) }
    }
}

// MARK: implements combined with every lifetime, replacement and removal

extension ForwardingTests {
    /// implements with weak, perContainer and eager singletons; replacing and removing forwards.
    @Suite struct WithLifetimes: ProbeFixtures {
        /// A weakSingleton is one instance through both types while held, and one new instance for both after it goes.
        @Test func aForwardedWeakSingletonIsOneInstanceWhileHeldAndRebuiltOnceAfter() throws {
            let c = Container(name: "c")
            let builds = Counter()
            c.register(Impl.self, lifetime: .weakSingleton, counting: builds) { Impl() }.implements((any Service).self)
            for _ in 0..<3 { _ = try c.resolve(Impl.self) }
            var held: Impl? = try c.resolve(Impl.self)
            for _ in 0..<3 { #expect(try c.resolve((any Service).self) === held) }
            let before = builds.value
            weak let weakHeld = held
            held = nil
            #expect(weakHeld == nil)
            let again = try c.resolve((any Service).self)
            #expect(builds.value == before + 1)
            #expect(try c.resolve(Impl.self) === again)
        }

        /// perContainer through a forward: one instance per starting container, the same through both types.
        @Test func aForwardedPerContainerInstanceIsSharedByBothTypesPerStartingContainer() throws {
            let (root, a, b) = Container.rootWithTwoChildren("a", "b")
            let builds = Counter()
            root.register(Impl.self, lifetime: .perContainer, counting: builds) { Impl() }.implements(
                (any Service).self)
            for _ in 0..<3 {
                let viaP = try a.resolve((any Service).self)
                #expect(try a.resolve(Impl.self) === viaP)
                #expect(try b.resolve(Impl.self) !== viaP)
                #expect(try b.resolve((any Service).self) === b.resolve(Impl.self))
            }
            #expect(builds.value == 2)
        }

        /// An eager singleton first resolved through its forwarded type is not built again by bootstrap.
        @Test func anEagerSingletonResolvedThroughItsForwardIsNotBuiltAgainByBootstrap() throws {
            let c = Container(name: "c")
            let builds = Counter()
            c.register(Impl.self, lifetime: .eagerSingleton, counting: builds) { Impl() }.implements((any Service).self)
            let first = try c.resolve((any Service).self)
            try c.bootstrap()
            try c.bootstrap()
            #expect(builds.value == 1)
            #expect(try c.resolve(Impl.self) === first)
        }

        /// implements of a key registered earlier in the same container replaces it and releases its instance.
        @Test func implementsReplacesAnEarlierRegistrationOfTheForwardedKeyAndReleasesIt() throws {
            let c = Container(name: "c")
            c.register((any Service).self, lifetime: .singleton) { _ in Impl() }
            weak var old: (any Service)?
            for _ in 0..<3 { old = try c.resolve((any Service).self) }
            #expect(old != nil)
            let reg = c.register(Impl.self, lifetime: .singleton) { _ in Impl() }
            reg.implements((any Service).self)
            #expect(old == nil)
            #expect(try c.resolve((any Service).self) === c.resolve(Impl.self))
        }

        /// Replacing a registration releases the instance read through its forward, even after many resolves.
        @Test func replacingDropsTheInstanceCachedThroughAWarmForward() throws {
            let c = Container(name: "c")
            c.register(Impl.self, lifetime: .singleton) { _ in Impl() }.implements((any Service).self)
            weak var old: (any Service)?
            for _ in 0..<5 { old = try c.resolve((any Service).self) }
            c.register(Impl.self, lifetime: .singleton) { _ in Impl() }.implements((any Service).self)
            #expect(old == nil)
            let fresh = try c.resolve((any Service).self)
            #expect(try c.resolve(Impl.self) === fresh)
        }

        /// Removing a child registration uncovers the parent's registration of the forwarded key.
        @Test func removingAForwardingChildRegistrationUncoversTheParentsKey() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let rootService = Impl()
            root.register((any Service).self, lifetime: .singleton) { _ in rootService }
            let reg = child.register(Impl.self, lifetime: .singleton) { _ in Impl() }.implements((any Service).self)
            for _ in 0..<4 { #expect(try child.resolve((any Service).self) !== rootService) }
            child.remove(reg)
            #expect(try child.resolve((any Service).self) === rootService)
        }
    }

    /// A forwarded type and its Optional share the resolve's instance.
    @Suite struct WithinOneResolve: ProbeFixtures {
        /// Own type, forwarded type and Optional of it get one instance within a resolve, for every sharing lifetime.
        @Test(arguments: [Lifetime.graph, .singleton, .perContainer, .weakSingleton])
        func theForwardedTypeItsOptionalAndTheOwnTypeShareOneInstanceInAResolve(lifetime: Lifetime) throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            root.register(Impl.self, lifetime: lifetime) { _ in Impl() }.implements((any Service).self)
            child.register(Holder.self) { r in
                let h = Holder()
                h.service = try r.resolve((any Service).self)
                h.impl = try r.resolve(Impl.self)
                return h
            }.onResolved { r, h in
                let s: (any Service)? = try r.resolve()
                #expect(s === h.impl)
            }
            for _ in 0..<3 {
                let h = try child.resolve(Holder.self)
                #expect(h.service === h.impl)
            }
        }
    }
}
