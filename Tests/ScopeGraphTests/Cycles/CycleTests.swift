import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Cycles: constructor cycles throw `.circularDependency` with the path ending in the repeated
/// key; property-injection cycles through `onResolved` resolve, each factory running once;
/// the ordering and failure rules of `onResolved`.
@Suite struct CycleTests: ServiceFixtures {
    /// Constructor-cycle participants: each one's factory resolves the next.
    final class A: Sendable {}
    final class B: Sendable {}
    final class C: Sendable {}
    final class Top: Sendable {}

    /// Property-injection participants.
    final class Parent: @unchecked Sendable {
        // @unchecked: `child` is set once, by an onResolved block, before the resolve returns.
        let child: Child
        init(child: Child) { self.child = child }
    }

    final class Child: @unchecked Sendable {
        // @unchecked: set once by an onResolved block before the resolve returns.
        var parent: Parent?
        var flag = false
    }

    static let allLifetimes: [Lifetime] = [.unique, .graph, .singleton, .weakSingleton, .eagerSingleton, .perContainer]

    /// Registers `Parent`, whose factory (its runs counted in `runs`) takes a `Child`: the
    /// constructor end of a mixed cycle.
    @discardableResult
    static func registerParent(
        in container: Container, lifetime: Lifetime = .graph, counting runs: Counter = Counter()
    ) -> Registration<Parent> {
        container.register(Parent.self, lifetime: lifetime) { r in
            runs.increment()
            return Parent(child: try r.resolve())
        }
    }

    /// Registers `Child` (its runs counted in `runs`), whose block sets its `parent`: the
    /// property end of a mixed cycle.
    static func registerChildPointingBack(
        in container: Container, lifetime: Lifetime = .graph, counting runs: Counter = Counter()
    ) {
        container.register(Child.self, lifetime: lifetime, counting: runs) { Child() }
            .onResolved { r, child in child.parent = try r.resolve() }
    }

    // MARK: Constructor cycles

    @Test(arguments: allLifetimes)
    func aTwoStepConstructorCycleThrowsWithThePathEndingInTheRepeatedKey(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        container.register(A.self, lifetime: lifetime, needing: B.self) { A() }
        container.register(B.self, lifetime: lifetime, needing: A.self) { B() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(A.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.key.typeName == "A")
        #expect(error.pathDescriptions == ["A", "B", "A"])
    }

    @Test(arguments: allLifetimes)
    func aFactoryThatResolvesItsOwnKeyIsACycle(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        container.register(A.self, lifetime: lifetime, needing: A.self) { A() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(A.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["A", "A"])
    }

    @Test func aCycleBelowTheTopLevelRequestKeepsTheWholePath() throws {
        let container = Container(name: "root")
        container.register(Top.self, needing: A.self) { Top() }
        container.register(A.self, needing: B.self) { A() }
        container.register(B.self, needing: C.self) { B() }
        container.register(C.self, needing: A.self) { C() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Top.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["Top", "A", "B", "C", "A"])
    }

    @Test func aTaggedKeyInACycleKeepsItsTagInThePath() throws {
        let container = Container(name: "root")
        container.register(A.self, tag: "x", needing: B.self) { A() }
        container.register(B.self, needing: A.self, tagged: "x") { B() }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(A.self, tag: "x") }
        #expect(error.pathDescriptions == ["A[tag: \"x\"]", "B", "A[tag: \"x\"]"])
    }

    @Test func resolvingTheSameKeyTwiceInOneGraphIsNotACycle() throws {
        let container = Container(name: "root")
        container.register(C.self, lifetime: .unique) { _ in C() }
        container.register(B.self, needing: C.self) { B() }
        container.register(A.self) { r in
            _ = try r.resolve(C.self)
            _ = try r.resolve(B.self)
            return A()
        }
        _ = try container.resolve(A.self)
    }

    @Test func aConstructorCycleAcrossParentAndChildIsDetected() throws {
        // A lives in the root; as a graph registration its dependencies resolve from the child.
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(A.self, needing: B.self) { A() }
        child.register(B.self, needing: A.self) { B() }
        let error = try #require(throws: ResolutionError.self) { _ = try child.resolve(A.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["A", "B", "A"])
    }

    @Test func aCycleThroughAnOwnerRootedSingletonIsDetectedAtTheRepeatedKey() throws {
        // Started from a child: the singleton asks its owner for A, whose factory (for the
        // child's request) is still running. That is the cycle, A's factory runs once.
        for startAtChild in [true, false] {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let aRuns = Counter()
            root.register(A.self, lifetime: .graph, needing: B.self, counting: aRuns) { A() }
            root.register(B.self, lifetime: .singleton, needing: A.self) { B() }
            let error = try #require(throws: ResolutionError.self) {
                _ = try (startAtChild ? child : root).resolve(A.self)
            }
            #expect(error.kind.caseName == "circularDependency")
            #expect(error.pathDescriptions == ["A", "B", "A"])
            #expect(aRuns.value == 1)
        }
    }

    @Test(arguments: [Lifetime.graph, .singleton])
    func aConstructorCycleAcrossCollaborationLinksIsDetected(lifetime: Lifetime) throws {
        let left = Container(name: "left")
        let right = Container(name: "right")
        left.collaborateBothWays(with: right)
        left.register(A.self, lifetime: lifetime, needing: B.self) { A() }
        right.register(B.self, lifetime: lifetime, needing: A.self) { B() }
        let fromLeft = try #require(throws: ResolutionError.self) { _ = try left.resolve(A.self) }
        #expect(fromLeft.kind.caseName == "circularDependency")
        #expect(fromLeft.pathDescriptions == ["A", "B", "A"])
        let fromRight = try #require(throws: ResolutionError.self) { _ = try right.resolve(B.self) }
        #expect(fromRight.pathDescriptions == ["B", "A", "B"])
    }

    @Test func aCycleErrorLeavesTheContainerUsable() throws {
        let container = Container(name: "root")
        let breakCycle = Guarded(false)
        container.register(A.self, lifetime: .singleton) { r in
            if !breakCycle.withLock({ $0 }) { _ = try r.resolve(B.self) }
            return A()
        }
        container.register(B.self, lifetime: .singleton, needing: A.self) { B() }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(A.self) }
        breakCycle.withLock { $0 = true }
        _ = try container.resolve(A.self)
        _ = try container.resolve(B.self)
    }

    // MARK: Property-injection cycles

    @Test(arguments: [Lifetime.singleton, .graph, .perContainer, .weakSingleton, .eagerSingleton])
    func aMixedCycleBuildsEachInstanceOnceAndPointsBackAtTheReturnedInstance(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        let parentRuns = Counter()
        let childRuns = Counter()
        Self.registerParent(in: container, lifetime: lifetime, counting: parentRuns)
        Self.registerChildPointingBack(in: container, lifetime: lifetime, counting: childRuns)
        let parent = try container.resolve(Parent.self)
        defer { parent.child.parent = nil }  // the test's parent <-> child cycle
        #expect(parent.child.parent === parent)
        #expect(parentRuns.value == 1)
        #expect(childRuns.value == 1)
    }

    @Test func aMixedCycleResolvesFromEitherEnd() throws {
        let container = Container(name: "root")
        let parentRuns = Counter()
        Self.registerParent(in: container, lifetime: .singleton, counting: parentRuns)
        Self.registerChildPointingBack(in: container, lifetime: .singleton)
        let child = try container.resolve(Child.self)
        defer { child.parent = nil }  // the test's parent <-> child cycle
        let parent = try #require(child.parent)
        #expect(parent.child === child)
        #expect(try container.resolve(Parent.self) === parent)
        #expect(parentRuns.value == 1)
    }

    @Test(arguments: [Lifetime.singleton, .graph, .perContainer])
    func aPurePropertyCycleResolvesWithEachFactoryRunOnce(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        let leftRuns = Counter()
        let rightRuns = Counter()
        container.register(Left.self, lifetime: lifetime, counting: leftRuns) { Left() }
            .onResolved { r, left in left.right = try r.resolve() }
        container.register(Right.self, lifetime: lifetime, counting: rightRuns) { Right() }
            .onResolved { r, right in right.left = try r.resolve() }
        let left = try container.resolve(Left.self)
        defer { left.right = nil }  // the test's left <-> right cycle
        let right = try #require(left.right)
        #expect(right.left === left)
        #expect(leftRuns.value == 1)
        #expect(rightRuns.value == 1)
    }

    @Test func aPropertyCycleAcrossCollaboratingContainersResolves() throws {
        let featureA = Container(name: "featureA")
        let featureB = Container(name: "featureB")
        featureA.collaborateBothWays(with: featureB)
        let leftRuns = Counter()
        let rightRuns = Counter()
        featureA.register(Left.self, lifetime: .singleton, counting: leftRuns) { Left() }
            .onResolved { r, left in left.right = try r.resolve() }
        featureB.register(Right.self, lifetime: .singleton, counting: rightRuns) { Right() }
            .onResolved { r, right in right.left = try r.resolve() }
        let left = try featureA.resolve(Left.self)
        defer { left.right = nil }  // the test's left <-> right cycle
        #expect(left.right?.left === left)
        #expect(try featureB.resolve(Right.self) === left.right)
        #expect(leftRuns.value == 1)
        #expect(rightRuns.value == 1)
    }

    @Test func aMixedCycleAcrossParentAndChildResolves() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        Self.registerParent(in: root)
        Self.registerChildPointingBack(in: child)
        let parent = try child.resolve(Parent.self)
        defer { parent.child.parent = nil }  // the test's parent <-> child cycle
        #expect(parent.child.parent === parent)
    }

    @Test func aMixedCycleThroughAnOwnerRootedSingletonResolvesFromAChild() throws {
        // Parent (graph) takes Child in its initializer; Child (a root singleton) gets Parent
        // by property, resolved from its owner: it must get the Parent the resolve returned.
        for startAtChild in [true, false] {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let parentRuns = Counter()
            Self.registerParent(in: root, counting: parentRuns)
            Self.registerChildPointingBack(in: root, lifetime: .singleton)
            let parent = try (startAtChild ? child : root).resolve(Parent.self)
            defer { parent.child.parent = nil }  // the test's parent <-> child cycle
            #expect(parent.child.parent === parent)
            #expect(parentRuns.value == 1)
        }
    }

    // MARK: onResolved ordering and caching

    @Test func blocksRunAfterTheOutermostFactoryReturns() throws {
        let container = Container(name: "root")
        let seenInFactory = Guarded<Bool?>(nil)
        container.register(Child.self) { _ in Child() }.onResolved { _, child in child.flag = true }
        container.register(Parent.self) { r in
            let child: Child = try r.resolve()
            seenInFactory.withLock { $0 = child.flag }
            return Parent(child: child)
        }
        let parent = try container.resolve(Parent.self)
        #expect(seenInFactory.withLock { $0 } == false)
        #expect(parent.child.flag)
    }

    @Test func blocksRunDependenciesFirst() throws {
        let container = Container(name: "root")
        let log = EventLog()
        container.register(C.self) { _ in C() }.onResolved { _, _ in log.record("C") }
        container.register(B.self, needing: C.self) { B() }.onResolved { _, _ in log.record("B") }
        container.register(A.self, needing: B.self) { A() }.onResolved { _, _ in log.record("A") }
        _ = try container.resolve(A.self)
        #expect(log.events == ["C", "B", "A"])
    }

    @Test func blocksRunInTheOrderTheFactoriesFinished() throws {
        let container = Container(name: "root")
        let log = EventLog()
        container.register(B.self) { _ in B() }.onResolved { _, _ in log.record("B") }
        container.register(C.self) { _ in C() }.onResolved { _, _ in log.record("C") }
        container.register(A.self) { r in
            _ = try r.resolve(C.self)
            _ = try r.resolve(B.self)
            return A()
        }.onResolved { _, _ in log.record("A") }
        _ = try container.resolve(A.self)
        #expect(log.events == ["C", "B", "A"])
    }

    @Test func blocksOfOneRegistrationRunInTheOrderAdded() throws {
        let container = Container(name: "root")
        let log = EventLog()
        container.register(A.self) { _ in A() }
            .onResolved { _, _ in log.record("first") }
            .onResolved { _, _ in log.record("second") }
            .onResolved { _, _ in log.record("third") }
        _ = try container.resolve(A.self)
        #expect(log.events == ["first", "second", "third"])
    }

    @Test(arguments: [Lifetime.graph, .singleton, .perContainer])
    func aBlockThatResolvesAKeyThisResolveBuiltGetsThatInstance(lifetime: Lifetime) throws {
        let container = Container(name: "root")
        let childRuns = Counter()
        let seenByBlock = Guarded<Child?>(nil)
        container.register(Child.self, lifetime: lifetime, counting: childRuns) { Child() }
        Self.registerParent(in: container)
            .onResolved { r, _ in
                let child: Child = try r.resolve()
                seenByBlock.withLock { $0 = child }
            }
        let parent = try container.resolve(Parent.self)
        #expect(seenByBlock.withLock { $0 } === parent.child)
        #expect(childRuns.value == 1)
    }

    @Test func aBlockReceivesTheInstanceTheFactoryReturned() throws {
        let container = Container(name: "root")
        let seen = Guarded<A?>(nil)
        container.register(A.self) { _ in A() }.onResolved { _, a in seen.withLock { $0 = a } }
        let a = try container.resolve(A.self)
        #expect(seen.withLock { $0 } === a)
    }

    @Test func aCachedInstanceDoesNotRunItsBlocksAgain() throws {
        let container = Container(name: "root")
        let blockRuns = Counter()
        container.register(A.self, lifetime: .singleton) { _ in A() }.onResolved { _, _ in blockRuns.increment() }
        _ = try container.resolve(A.self)
        _ = try container.resolve(A.self)
        #expect(blockRuns.value == 1)
    }

    /// A registration resolved twice in one resolve: blocks run once per new instance.
    @Test(arguments: [(Lifetime.graph, 1), (.unique, 2), (.singleton, 1), (.perContainer, 1)])
    func blocksRunOncePerNewInstanceWithinAResolve(lifetime: Lifetime, expectedRuns: Int) throws {
        let container = Container(name: "root")
        let blockRuns = Counter()
        container.register(C.self, lifetime: lifetime) { _ in C() }.onResolved { _, _ in blockRuns.increment() }
        container.register(A.self) { r in
            _ = try r.resolve(C.self)
            _ = try r.resolve(C.self)
            return A()
        }
        _ = try container.resolve(A.self)
        #expect(blockRuns.value == expectedRuns)
    }

    /// The instance whose block threw is not cached; a dependency that was complete (no
    /// blocks, built from published instances) stays cached.
    @Test func aBlockThrowingFailsTheResolveAndDiscardsItsInstanceButNotItsCompleteDependencies() throws {
        let container = Container(name: "root")
        let aRuns = Counter()
        let bRuns = Counter()
        let attempts = Counter()
        container.register(B.self, lifetime: .singleton, counting: bRuns) { B() }
        container.register(A.self, lifetime: .singleton, needing: B.self, counting: aRuns) { A() }.onResolved { _, _ in
            if attempts.increment() == 1 { throw Boom("first attempt") }
        }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(A.self) }
        #expect(error.kind.caseName == "factoryFailed")
        #expect(error.kind.underlyingError as? Boom == Boom("first attempt"))
        #expect(error.key.typeName == "A")
        _ = try container.resolve(A.self)
        #expect(aRuns.value == 2)
        #expect(bRuns.value == 1)
    }

    @Test func aBlockThatResolvesAMissingKeyFailsTheResolve() throws {
        let container = Container(name: "root")
        Self.registerChildPointingBack(in: container, lifetime: .singleton)
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Child.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.key.typeName == "Parent")
        #expect(error.path.last?.typeName == "Parent")
    }

    /// The block of B (which A's factory resolved) runs after A's factory returned; its errors
    /// still carry the path the contract asks for, from the top-level request down, as
    /// the Circular Dependencies article describes: the key is B's, the path ends at B (or goes on
    /// to what B's block failed to resolve).
    @Test func aFailingBlockOfADependencyReportsThePathFromTheTopLevelRequest() throws {
        let container = Container(name: "root")
        container.register(Top.self, needing: A.self) { Top() }
        container.register(A.self, needing: B.self) { A() }
        container.register(B.self) { _ in B() }.onResolved { _, _ in throw Boom("block") }
        let thrown = try #require(throws: ResolutionError.self) { _ = try container.resolve(Top.self) }
        #expect(thrown.kind.caseName == "factoryFailed")
        #expect(thrown.kind.underlyingError as? Boom == Boom("block"))
        #expect(thrown.key.typeName == "B")
        #expect(thrown.pathDescriptions == ["Top", "A", "B"])

        container.register(B.self) { _ in B() }.onResolved { r, _ in _ = try r.resolve(Child.self) }
        let missing = try #require(throws: ResolutionError.self) { _ = try container.resolve(Top.self) }
        #expect(missing.kind.caseName == "notRegistered")
        #expect(missing.key.typeName == "Child")
        #expect(missing.pathDescriptions == ["Top", "A", "B", "Child"])
    }

    private final class Ping: @unchecked Sendable { var pong: Pong? }
    private final class Pong: @unchecked Sendable { var ping: Ping? }

    /// Two `unique` registrations whose `onResolved` blocks resolve each other would create new
    /// instances forever; the resolve reports the cycle, with the chain of blocks, instead.
    @Test func aPropertyCycleBetweenUniqueInstancesIsReportedInsteadOfLooping() throws {
        let container = Container(name: "root")
        let builds = Counter()
        container.register(Ping.self, lifetime: .unique, counting: builds) { Ping() }.onResolved { r, ping in
            ping.pong = try r.resolve()
        }
        container.register(Pong.self, lifetime: .unique, counting: builds) { Pong() }.onResolved { r, pong in
            pong.ping = try r.resolve()
        }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Ping.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.path.map(\.typeName) == ["Ping", "Pong", "Ping"])
        #expect(builds.value == 2)
        // With one side shared within the graph, the same cycle closes and resolves.
        container.register(Pong.self, lifetime: .graph) { _ in Pong() }.onResolved { r, pong in
            pong.ping = try r.resolve()
        }
        let ping = try container.resolve(Ping.self)
        defer { ping.pong?.ping = nil }  // the test's pong <-> second ping cycle
        #expect(ping.pong?.ping?.pong === ping.pong)
    }
}

// MARK: onResolved ordering and failures combined with lifetimes

extension CycleTests {
    /// Block order when blocks build new instances; throwing blocks under every cached lifetime.
    @Suite struct BlocksAndLifetimes: ProbeFixtures {
        /// Instances a block builds queue their blocks after those already queued, dependencies first.
        @Test func blocksOfInstancesABlockBuildsRunAfterTheBlocksAlreadyQueued() throws {
            let c = Container(name: "c")
            let log = EventLog()
            c.register(Top.self, needing: Mid.self) { Top() }.onResolved { _, _ in log.record("Top") }
            c.register(Mid.self) { _ in Mid() }.onResolved { r, _ in
                log.record("Mid")
                _ = try r.resolve(Leaf.self)
            }
            c.register(Leaf.self, needing: Dep.self) { Leaf() }.onResolved { _, _ in log.record("Leaf") }
            c.register(Dep.self) { _ in Dep() }.onResolved { _, _ in log.record("Dep") }
            _ = try c.resolve(Top.self)
            #expect(log.events == ["Mid", "Top", "Dep", "Leaf"])
        }

        /// A root and its child; `Impl` registered in the root under a lifetime, its builds
        /// counted and each instance it built kept; a switch that makes a block throw while on.
        struct ImplUnderRoot {
            let root = Container(name: "root")
            let child: Container
            let builds = Counter()
            let built = Guarded<[Impl]>([])
            let failing = Guarded(true)
            let impl: Registration<Impl>

            init(_ lifetime: Lifetime) {
                child = root.makeChild(name: "child")
                let (builds, built) = (builds, built)
                impl = root.register(Impl.self, lifetime: lifetime) { _ in
                    builds.increment()
                    let instance = Impl()
                    built.withLock { $0.append(instance) }
                    return instance
                }
            }

            /// Adds a block to `registration` that throws while `failing` is on.
            func throwWhileFailing<T>(in registration: Registration<T>) {
                let failing = failing
                registration.onResolved { _, _ in
                    if failing.current { throw Boom() }
                }
            }
        }

        /// A throwing block caches nothing, even a weakSingleton held elsewhere or a perContainer instance.
        @Test(arguments: [Lifetime.singleton, .perContainer, .weakSingleton, .eagerSingleton, .graph])
        func aThrowingBlockLeavesNothingCachedUnderAnyLifetime(lifetime: Lifetime) throws {
            let tree = ImplUnderRoot(lifetime)
            tree.throwWhileFailing(in: tree.impl)
            #expect(throws: ResolutionError.self) { _ = try tree.child.resolve(Impl.self) }
            tree.failing.withLock { $0 = false }
            let got = try tree.child.resolve(Impl.self)
            #expect(tree.builds.value == 2)
            #expect(got !== tree.built.current.first)
        }

        /// A dependent's throwing block leaves its complete cached dependencies (any cached
        /// lifetime) cached: they were published when their factories returned.
        @Test(arguments: [Lifetime.singleton, .perContainer, .weakSingleton, .eagerSingleton])
        func aDependentsThrowingBlockKeepsItsCompleteCachedDependencies(lifetime: Lifetime) throws {
            let tree = ImplUnderRoot(lifetime)
            tree.throwWhileFailing(in: tree.root.register(Top.self, needing: Impl.self) { Top() })
            #expect(throws: ResolutionError.self) { _ = try tree.child.resolve(Top.self) }
            tree.failing.withLock { $0 = false }
            _ = try tree.child.resolve(Top.self)
            #expect(tree.builds.value == 1)
            #expect(try tree.child.resolve(Impl.self) === tree.built.current.first)
        }
    }

    @Suite struct BlocksResolvingBuiltInstances: ProbeFixtures {
        /// A block resolving its own key gets its instance (factory once) for every sharing lifetime, from a child.
        @Test(arguments: [Lifetime.graph, .singleton, .perContainer, .weakSingleton, .eagerSingleton])
        func aBlockResolvingItsOwnKeyGetsItsInstanceUnderEverySharingLifetime(lifetime: Lifetime) throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let builds = Counter()
            root.register(Holder.self, lifetime: lifetime, counting: builds) { Holder() }.onResolved { r, h in
                h.me = try r.resolve()
            }
            let h = try child.resolve(Holder.self)
            #expect(h.me === h)
            #expect(builds.value == 1)
            h.me = nil
        }

        /// A perContainer end of a property cycle started in a child is built once and cached in the child.
        @Test func aPerContainerPropertyCycleStartedInAChildBuildsOnceAndIsCachedThere() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let builds = Counter()
            root.register(Holder.self, lifetime: .perContainer, counting: builds) { Holder() }.onResolved { r, h in
                h.top = try r.resolve(Top.self)
            }
            child.register(Cyc.self) { r in Cyc(holder: try r.resolve()) }
            child.register(Top.self) { r in
                let c = try r.resolve(Cyc.self)
                _ = c
                return Top()
            }
            let h = try child.resolve(Holder.self)
            #expect(builds.value == 1)
            #expect(try child.resolve(Holder.self) === h)
            #expect(builds.value == 1)
        }
    }
}
