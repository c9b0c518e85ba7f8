import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// The six lifetimes: where each instance lives, and which container its factory resolves
/// its dependencies from (owner-rooted for singletons, the starting container otherwise).
@Suite struct LifetimeTests {
    final class Service: Sendable {
        let run: Int
        init(run: Int) { self.run = run }
    }

    /// A dependency that says which container registered it.
    final class Dependency: Sendable {
        let origin: String
        init(origin: String) { self.origin = origin }
    }

    /// A service built from a `Dependency`: a consumer, or the graph intermediate between a
    /// singleton (`Holder`) and a dependency.
    final class Consumer: Sendable {
        let dependency: Dependency
        init(dependency: Dependency) { self.dependency = dependency }
    }

    final class Holder: Sendable {
        let consumer: Consumer
        init(consumer: Consumer) { self.consumer = consumer }
    }

    struct Pair {
        let first: Service
        let second: Service
    }

    struct Trio {
        let pair: Pair
        let direct: Service
    }

    struct Token {
        let run: Int
    }

    private func registerDependency(in container: Container) {
        let origin = container.name
        container.register(Dependency.self) { _ in Dependency(origin: origin) }
    }

    private func registerPair(in container: Container) {
        container.register(Pair.self, lifetime: .unique) { r in Pair(first: try r.resolve(), second: try r.resolve()) }
    }

    // MARK: unique

    @Test func uniqueGivesANewInstanceEveryResolve() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .unique) { _ in Service(run: runs.increment()) }
        registerPair(in: container)
        #expect(try container.resolve(Service.self) !== container.resolve(Service.self))
        let pair = try container.resolve(Pair.self)
        #expect(pair.first !== pair.second)
        #expect(runs.value == 4)
    }

    // MARK: graph

    @Test func graphIsTheDefaultLifetime() throws {
        let container = Container(name: "root")
        let registration = container.register(Service.self) { _ in Service(run: 0) }
        #expect(registration.lifetime == .graph)
        registerPair(in: container)
        let pair = try container.resolve(Pair.self)
        #expect(pair.first === pair.second)
    }

    @Test func graphIsSharedWithinOneTopLevelResolveAndNewInTheNext() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .graph) { _ in Service(run: runs.increment()) }
        registerPair(in: container)
        let first = try container.resolve(Pair.self)
        let second = try container.resolve(Pair.self)
        #expect(first.first === first.second)
        #expect(second.first === second.second)
        #expect(first.first !== second.first)
        #expect(runs.value == 2)
    }

    @Test(arguments: [3, 40])
    func everyGraphInstanceOfAResolveIsSharedHoweverManyItHolds(count: Int) throws {
        // Past a handful, a resolve indexes its graph instances instead of scanning them.
        let container = Container(name: "root")
        let runs = Counter()
        let tags = (0..<count).map { ServiceTag("node-\($0)") }
        for tag in tags {
            container.register(Service.self, tag: tag, lifetime: .graph) { _ in Service(run: runs.increment()) }
        }
        container.register(Service.self, lifetime: .graph) { _ in Service(run: runs.increment()) }
        container.register([Pair].self, lifetime: .unique) { r in
            var pairs: [Pair] = []
            for tag in tags {
                pairs.append(Pair(first: try r.resolve(tag: tag), second: try r.resolve(tag: tag)))
            }
            // The untagged one goes through the inlined path, after the tagged ones.
            pairs.append(Pair(first: try r.resolve(), second: try r.resolve()))
            return pairs
        }
        let first = try container.resolve([Pair].self)
        let second = try container.resolve([Pair].self)
        #expect(first.allSatisfy { $0.first === $0.second })
        #expect(Set(first.map { ObjectIdentifier($0.first) }).count == count + 1)
        #expect(zip(first, second).allSatisfy { $0.first !== $1.first })
        #expect(runs.value == 2 * (count + 1))
    }

    @Test func aGraphInstanceIsSharedByTheRequestsOfOneResolveThatStartFromOneContainer() throws {
        // A singleton's factory asks from its owner; the top-level request from where it started.
        for startAtChild in [true, false] {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            let runs = Counter()
            root.register(Service.self, lifetime: .graph) { _ in Service(run: runs.increment()) }
            root.register(Pair.self, lifetime: .singleton) { r in Pair(first: try r.resolve(), second: try r.resolve())
            }
            root.register(Trio.self) { r in Trio(pair: try r.resolve(), direct: try r.resolve()) }
            let trio = try (startAtChild ? child : root).resolve(Trio.self)
            #expect(trio.pair.first === trio.pair.second)
            #expect((trio.direct === trio.pair.first) == !startAtChild)
            #expect(runs.value == (startAtChild ? 2 : 1))
        }
    }

    /// What a request from a child and a singleton's factory both take.
    struct Front {
        let consumer: Consumer
        let holder: Holder
    }

    @Test(arguments: [Lifetime.singleton, .weakSingleton, .eagerSingleton])
    func aSingletonNeverGetsAGraphInstanceTheResolveBuiltFromAChild(lifetime: Lifetime) throws {
        // The child's request builds Consumer first, from the child's view; the singleton's
        // factory, asking from its owner, must not get that one.
        let (front, root) = try resolveFrontFromAChild(holderLifetime: lifetime, holderFirst: false)
        #expect(front.consumer.dependency.origin == "child")
        #expect(front.holder.consumer.dependency.origin == "root")
        #expect(try root.resolve(Holder.self) === front.holder)
    }

    @Test func aChildsRequestNeverGetsAGraphInstanceASingletonBuiltFromItsOwner() throws {
        // The mirror order: the singleton builds Consumer from the owner first; the child's own
        // request for Consumer then builds one from the child's view.
        let front = try resolveFrontFromAChild(holderLifetime: .singleton, holderFirst: true).front
        #expect(front.holder.consumer.dependency.origin == "root")
        #expect(front.consumer.dependency.origin == "child")
    }

    /// A root with a child that both register `Dependency`; `Consumer` (graph) and `Holder`
    /// (owner-rooted, holding a `Consumer`) in the root; `Front` resolved from the child, asking
    /// for its two parts in the order given.
    private func resolveFrontFromAChild(holderLifetime: Lifetime, holderFirst: Bool) throws -> (
        front: Front, root: Container
    ) {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        registerDependency(in: root)
        registerDependency(in: child)
        root.register(Consumer.self) { r in Consumer(dependency: try r.resolve()) }
        root.register(Holder.self, lifetime: holderLifetime) { r in Holder(consumer: try r.resolve()) }
        root.register(Front.self) { r in
            if holderFirst {
                let holder: Holder = try r.resolve()
                return Front(consumer: try r.resolve(), holder: holder)
            }
            let consumer: Consumer = try r.resolve()
            return Front(consumer: consumer, holder: try r.resolve())
        }
        return (try child.resolve(Front.self), root)
    }

    @Test(arguments: [false, true])
    func aGraphInstanceIsNotKeptAfterItsResolveReturns(withSingletonDependency: Bool) throws {
        let container = Container(name: "root")
        container.register(Dependency.self, lifetime: withSingletonDependency ? .singleton : .graph) { _ in
            Dependency(origin: "root")
        }
        container.register(Consumer.self) { r in Consumer(dependency: try r.resolve()) }
        weak var weakConsumer: Consumer?
        do { weakConsumer = try container.resolve(Consumer.self) }
        #expect(weakConsumer == nil)
    }

    // MARK: singleton

    @Test func singletonIsCreatedOnFirstResolveAndKept() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .singleton) { _ in Service(run: runs.increment()) }
        #expect(runs.value == 0)
        weak var weakService: Service?
        do { weakService = try container.resolve(Service.self) }
        #expect(runs.value == 1)
        #expect(weakService != nil)
        #expect(try container.resolve(Service.self) === weakService)
        #expect(runs.value == 1)
    }

    @Test func aSingletonIsTheSameObjectWhicheverChildResolvesIt() throws {
        let (root, left, right) = Container.rootWithTwoChildren("left", "right")
        let runs = Counter()
        root.register(Service.self, lifetime: .singleton) { _ in Service(run: runs.increment()) }
        let fromLeft = try left.resolve(Service.self)
        #expect(try right.resolve(Service.self) === fromLeft)
        #expect(try root.resolve(Service.self) === fromLeft)
        #expect(runs.value == 1)
    }

    @Test(arguments: [Lifetime.singleton, .weakSingleton, .eagerSingleton])
    func ownerRootedFactoriesResolveDependenciesFromTheOwner(lifetime: Lifetime) throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        registerDependency(in: root)
        registerDependency(in: child)
        root.register(Consumer.self, lifetime: lifetime) { r in Consumer(dependency: try r.resolve()) }
        let fromChild = try child.resolve(Consumer.self)
        #expect(fromChild.dependency.origin == "root")
        #expect(try root.resolve(Consumer.self) === fromChild)
    }

    @Test func aSingletonDoesNotCaptureAChildsRegistrationThroughAGraphIntermediate() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        registerDependency(in: root)
        registerDependency(in: child)
        root.register(Consumer.self) { r in Consumer(dependency: try r.resolve()) }
        root.register(Holder.self, lifetime: .singleton) { r in Holder(consumer: try r.resolve()) }
        #expect(try child.resolve(Holder.self).consumer.dependency.origin == "root")
        // The same graph registration resolved directly from the child does see the child's.
        #expect(try child.resolve(Consumer.self).dependency.origin == "child")
    }

    @Test func aSingletonNeverSeesADependencyRegisteredOnlyInAChild() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        registerDependency(in: child)
        root.register(Consumer.self, lifetime: .singleton) { r in Consumer(dependency: try r.resolve()) }
        let error = try #require(throws: ResolutionError.self) { _ = try child.resolve(Consumer.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.key.typeName == "Dependency")
        #expect(error.searched == ["root"])
    }

    @Test func aSingletonIsReleasedWithItsOwner() throws {
        weak var weakService: Service?
        do {
            let container = Container(name: "root")
            container.register(Service.self, lifetime: .singleton) { _ in Service(run: 0) }
            weakService = try container.resolve(Service.self)
            #expect(weakService != nil)
        }
        #expect(weakService == nil)
    }

    // MARK: unique / graph / perContainer resolve from the starting container

    @Test(arguments: [Lifetime.unique, .graph, .perContainer])
    func startingContainerFactoriesResolveDependenciesFromWhereTheResolveStarted(lifetime: Lifetime) throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        registerDependency(in: root)
        registerDependency(in: child)
        root.register(Consumer.self, lifetime: lifetime) { r in Consumer(dependency: try r.resolve()) }
        #expect(try child.resolve(Consumer.self).dependency.origin == "child")
        #expect(try root.resolve(Consumer.self).dependency.origin == "root")
    }

    @Test func startingContainerFactoriesSeeTheStartingContainersCollaborators() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let partner = Container(name: "partner")
        feature.collaborate(with: partner)
        registerDependency(in: root)
        registerDependency(in: partner)
        root.register(Consumer.self) { r in Consumer(dependency: try r.resolve()) }
        #expect(try feature.resolve(Consumer.self).dependency.origin == "partner")
    }

    // MARK: perContainer

    @Test(arguments: [3, 20])
    func perContainerKeepsOneInstancePerKeyHoweverManyAContainerCaches(count: Int) throws {
        // Past a handful, a container indexes its perContainer slots instead of scanning them.
        let root = Container(name: "root")
        let runs = Counter()
        let tags = (0..<count).map { ServiceTag("slot-\($0)") }
        let registrations = tags.map { tag in
            root.register(Service.self, tag: tag, lifetime: .perContainer) { _ in Service(run: runs.increment()) }
        }
        let child = root.makeChild(name: "child")
        let first = try tags.map { try child.resolve(Service.self, tag: $0) }
        let again = try tags.map { try child.resolve(Service.self, tag: $0) }
        #expect(zip(first, again).allSatisfy { $0 === $1 })
        #expect(Set(first.map { ObjectIdentifier($0) }).count == count)
        // Replacing one registration drops only its instance.
        let replaced = count / 2
        root.remove(registrations[replaced])
        root.register(Service.self, tag: tags[replaced], lifetime: .perContainer) { _ in Service(run: -1) }
        let after = try tags.map { try child.resolve(Service.self, tag: $0) }
        for (position, service) in after.enumerated() {
            if position == replaced {
                #expect(service.run == -1)
            } else {
                #expect(service === first[position])
            }
        }
    }

    @Test(arguments: [1, 2, 3, 40])
    func aRequestScopeReadsItsPerContainerInstanceAgainUntilTheRegistrationGoes(resolves: Int) throws {
        // A child with no registrations of its own (a request scope) reads its own slot of the
        // parent's perContainer registration, however often it asks.
        let root = Container(name: "app")
        let registration = root.register(Service.self, lifetime: .perContainer) { _ in Service(run: 1) }
        let request = root.makeChild(name: "request")
        let other = root.makeChild(name: "other")
        weak var weakFirst: Service?
        do {
            // The root has an instance of its own, in the slot its memo names.
            let rootsOwn = try root.resolve(Service.self)
            for _ in 0..<3 { #expect(try root.resolve(Service.self) === rootsOwn) }
            let first = try request.resolve(Service.self)
            weakFirst = first
            #expect(first !== rootsOwn)
            for _ in 1..<resolves { #expect(try request.resolve(Service.self) === first) }
            #expect(try other.resolve(Service.self) !== first)
        }
        #expect(weakFirst != nil)
        root.remove(registration)
        #expect(weakFirst == nil)
        #expect(throws: ResolutionError.self) { _ = try request.resolve(Service.self) }
        root.register(Service.self, lifetime: .perContainer) { _ in Service(run: 2) }
        let replacement = try request.resolve(Service.self)
        #expect(replacement.run == 2)
        for _ in 1..<resolves { #expect(try request.resolve(Service.self) === replacement) }
    }

    @Test func perContainerGivesOneInstancePerStartingContainer() throws {
        let (root, left, right) = Container.rootWithTwoChildren("left", "right")
        let runs = Counter()
        root.register(Service.self, lifetime: .perContainer) { _ in Service(run: runs.increment()) }
        let fromLeft = try left.resolve(Service.self)
        let fromRight = try right.resolve(Service.self)
        #expect(fromLeft !== fromRight)
        #expect(try left.resolve(Service.self) === fromLeft)
        #expect(try right.resolve(Service.self) === fromRight)
        #expect(try root.resolve(Service.self) !== fromLeft)
        #expect(runs.value == 3)
    }

    /// A parent that resolved its `perContainer` service twice has it memoized with its own
    /// slot; an empty (transparent) child reads its parent's memo, and still gets an instance
    /// of its own, asked directly or through a factory's resolver, from the first resolve on.
    @Test func aChildNeverReadsTheMemoizedPerContainerInstanceOfItsParent() throws {
        final class User: Sendable {
            let service: Service
            init(service: Service) { self.service = service }
        }
        let root = Container(name: "root")
        let runs = Counter()
        root.register(Service.self, lifetime: .perContainer) { _ in Service(run: runs.increment()) }
        root.register(User.self, lifetime: .unique) { r in User(service: try r.resolve()) }
        let rootInstance = try root.resolve(Service.self)
        #expect(try root.resolve(Service.self) === rootInstance)
        #expect(try root.resolve(User.self).service === rootInstance)
        for index in 0..<3 {
            let child = root.makeChild(name: "request-\(index)")
            let user = try child.resolve(User.self)
            #expect(user.service !== rootInstance, "through a resolver, child \(index)")
            #expect(try child.resolve(Service.self) === user.service, "directly, child \(index)")
            #expect(try child.resolve(User.self).service === user.service)
        }
        #expect(runs.value == 4)
    }

    @Test func perContainerInstancesLiveInTheStartingContainer() throws {
        let root = Container(name: "root")
        root.register(Service.self, lifetime: .perContainer) { _ in Service(run: 0) }
        weak var weakService: Service?
        var child: Container? = root.makeChild(name: "child")
        do { weakService = try child?.resolve(Service.self) }
        #expect(weakService != nil)
        child = nil
        #expect(weakService == nil)
    }

    @Test func aRootSingletonThatNeedsAPerContainerServiceGetsTheRootsInstance() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(Service.self, lifetime: .perContainer) { _ in Service(run: 0) }
        root.register(Pair.self, lifetime: .singleton) { r in Pair(first: try r.resolve(), second: try r.resolve()) }
        let pair = try child.resolve(Pair.self)
        #expect(try pair.first === root.resolve(Service.self))
        #expect(try pair.first !== child.resolve(Service.self))
    }

    /// Request scopes of a warmed-up parent (its lookups memoized, as in a running server):
    /// a factory that fails leaves nothing cached, so the same request scope builds again; a
    /// service whose factory needs itself is a cycle, reported, not a hang.
    @Test func aRequestScopesFailedBuildCachesNothingAndItsCycleIsReported() throws {
        struct Refused: Error {}
        let app = Container(name: "app")
        let runs = Counter()
        let refuse = Guarded(false)
        app.register(Service.self, lifetime: .perContainer) { _ in
            let run = runs.increment()
            if refuse.current { throw Refused() }
            return Service(run: run)
        }
        app.register(Holder.self, lifetime: .perContainer) { r in
            _ = try r.resolve(Holder.self)
            return Holder(consumer: Consumer(dependency: Dependency(origin: "app")))
        }
        for number in 0..<4 { _ = try app.makeChild(name: "warm-\(number)").resolve(Service.self) }
        let request = app.makeChild(name: "request")
        refuse.withLock { $0 = true }
        let failure = try #require(throws: ResolutionError.self) { try request.resolve(Service.self) }
        #expect("\(failure.kind)" == "factoryFailed(Refused())")
        refuse.withLock { $0 = false }
        let service = try request.resolve(Service.self)
        #expect(service.run == runs.value)
        #expect(try request.resolve(Service.self) === service)
        for number in 0..<4 {
            let error = try #require(throws: ResolutionError.self) {
                try app.makeChild(name: "cycle-\(number)").resolve(Holder.self)
            }
            #expect("\(error.kind)" == "circularDependency")
        }
    }

    // MARK: weakSingleton

    @Test func aWeakSingletonIsSharedWhileSomeoneHoldsIt() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .weakSingleton) { _ in Service(run: runs.increment()) }
        let held = try container.resolve(Service.self)
        #expect(try container.resolve(Service.self) === held)
        #expect(runs.value == 1)
    }

    @Test func aWeakSingletonIsNotKeptAliveByTheContainerAndIsRecreatedAfterRelease() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .weakSingleton) { _ in Service(run: runs.increment()) }
        weak var weakFirst: Service?
        do {
            let first = try container.resolve(Service.self)
            weakFirst = first
            #expect(first.run == 1)
        }
        #expect(weakFirst == nil)
        let second = try container.resolve(Service.self)
        #expect(second.run == 2)
        #expect(runs.value == 2)
    }

    @Test func aValueTypeUnderWeakSingletonBehavesAsUnique() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Token.self, lifetime: .weakSingleton) { _ in Token(run: runs.increment()) }
        #expect(try container.resolve(Token.self).run == 1)
        #expect(try container.resolve(Token.self).run == 2)
        #expect(runs.value == 2)
        // Within one resolve too: two requests, two values.
        container.register([Token].self, lifetime: .unique) { r in [try r.resolve(), try r.resolve()] }
        let pair = try container.resolve([Token].self)
        #expect(pair.map(\.run) == [3, 4])
        #expect(runs.value == 4)
    }

    // MARK: eagerSingleton

    @Test func anEagerSingletonIsBuiltByBootstrapOnce() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .eagerSingleton) { _ in Service(run: runs.increment()) }
        #expect(runs.value == 0)
        try container.bootstrap()
        #expect(runs.value == 1)
        let first = try container.resolve(Service.self)
        #expect(try container.resolve(Service.self) === first)
        #expect(runs.value == 1)
    }

    @Test func anEagerSingletonResolvedBeforeBootstrapIsNotBuiltAgain() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .eagerSingleton) { _ in Service(run: runs.increment()) }
        let early = try container.resolve(Service.self)
        #expect(runs.value == 1)
        try container.bootstrap()
        #expect(runs.value == 1)
        #expect(try container.resolve(Service.self) === early)
    }

    @Test func bootstrappingTwiceBuildsNothingTheSecondTime() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .eagerSingleton) { _ in Service(run: runs.increment()) }
        container.register(Service.self, tag: "other", lifetime: .eagerSingleton) { _ in Service(run: runs.increment())
        }
        try container.bootstrap()
        #expect(runs.value == 2)
        try container.bootstrap()
        #expect(runs.value == 2)
    }

    @Test func bootstrapBuildsOnlyEagerSingletons() throws {
        let container = Container(name: "root")
        let runs = Counter()
        for lifetime in [Lifetime.unique, .graph, .singleton, .weakSingleton, .perContainer] {
            container.register(Service.self, tag: ServiceTag("\(lifetime)"), lifetime: lifetime) { _ in
                Service(run: runs.increment())
            }
        }
        try container.bootstrap()
        #expect(runs.value == 0)
    }

    /// `bootstrap()` builds the eager singletons of the container, then of its children depth
    /// first, each container's in registration order; those of its ancestors and siblings wait
    /// for a bootstrap that covers them, which builds nothing twice.
    @Test func bootstrapCoversDescendantsButNotAncestors() throws {
        let (root, left, right) = Container.rootWithTwoChildren("left", "right")
        // Made after `right`: depth first visits it before `right` all the same.
        let leftChild = left.makeChild(name: "leftChild")
        let built = EventLog()
        for container in [root, left, right, leftChild] {
            let name = container.name
            // Registered "z" first: the order is the registrations', not the tags'.
            for tag in ["z", "a"] {
                container.register(Service.self, tag: ServiceTag(tag), lifetime: .eagerSingleton) { _ in
                    built.record("\(name).\(tag)")
                    return Service(run: 0)
                }
            }
        }
        try left.bootstrap()
        #expect(built.events == ["left.z", "left.a", "leftChild.z", "leftChild.a"])
        try root.bootstrap()
        #expect(
            built.events == [
                "left.z", "left.a", "leftChild.z", "leftChild.a",
                "root.z", "root.a", "right.z", "right.a",
            ])
    }

    /// `bootstrap()` throws the first error and stops there: the eager singletons after the
    /// failing one (in its container and in the containers after it) are not built, and those
    /// built before it stay built.
    @Test func bootstrapThrowsTheFirstErrorAndStops() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let built = EventLog()
        root.register(Service.self, tag: "before", lifetime: .eagerSingleton) { _ in
            built.record("before")
            return Service(run: 0)
        }
        root.register(Service.self, tag: "failing", lifetime: .eagerSingleton) { _ in
            built.record("failing")
            throw Boom("first")
        }
        root.register(Service.self, tag: "alsoFailing", lifetime: .eagerSingleton) { _ in
            built.record("alsoFailing")
            throw Boom("second")
        }
        root.register(Service.self, tag: "after", lifetime: .eagerSingleton) { _ in
            built.record("after")
            return Service(run: 0)
        }
        child.register(Service.self, lifetime: .eagerSingleton) { _ in
            built.record("child")
            return Service(run: 0)
        }
        let error = try #require(throws: ResolutionError.self) { try root.bootstrap() }
        #expect(error.kind.underlyingError as? Boom == Boom("first"))
        #expect(error.key.description == "Service[tag: \"failing\"]")
        #expect(built.events == ["before", "failing"])
        // Each eager singleton is its own top-level resolve: the one built before the failure
        // is kept, and the next bootstrap retries from the failing one.
        #expect(throws: ResolutionError.self) { try root.bootstrap() }
        #expect(built.events == ["before", "failing", "failing"])
    }

    /// `bootstrap()` of an ancestor builds a child's eager singleton once, right away, with
    /// its dependencies resolved from the child that owns it; the first resolve gets that one.
    @Test func bootstrapResolvesAnEagerSingletonsDependenciesFromItsOwner() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        registerDependency(in: root)
        registerDependency(in: child)
        let runs = Counter()
        child.register(Consumer.self, lifetime: .eagerSingleton) { r in
            runs.increment()
            return Consumer(dependency: try r.resolve())
        }
        try root.bootstrap()
        #expect(runs.value == 1, "built by bootstrap, before any resolve")
        #expect(try child.resolve(Consumer.self).dependency.origin == "child")
        #expect(runs.value == 1)
    }

    @Test func bootstrapSkipsEagerSingletonsThatNeedRuntimeArguments() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .eagerSingleton) { (_, n: Int) in Service(run: runs.increment() + n)
        }
        try container.bootstrap()
        #expect(runs.value == 0)
    }

    @Test func bootstrapThrowsWhenAnEagerSingletonFails() throws {
        let container = Container(name: "root")
        container.register(Service.self, lifetime: .eagerSingleton) { _ in throw Boom("no disk") }
        let error = try #require(throws: ResolutionError.self) { try container.bootstrap() }
        #expect(error.kind.caseName == "factoryFailed")
        #expect(error.kind.underlyingError as? Boom == Boom("no disk"))
        #expect(error.key.typeName == "Service")
    }
}

// MARK: Lifetimes combined with blocks, bootstrap and value types

extension LifetimeTests {
    /// bootstrap after a throwing block, value types under weakSingleton, eager singletons in children.
    @Suite struct Combined: ProbeFixtures {
        /// A bootstrap whose eager block threw caches nothing; the next bootstrap builds it, and a resolve then does not.
        @Test func bootstrapAfterABlockThrewBuildsTheEagerSingletonAgainOnce() throws {
            let c = Container(name: "c")
            let builds = Counter()
            let fail = Guarded(true)
            c.register(Impl.self, lifetime: .eagerSingleton, counting: builds) { Impl() }.onResolved { _, _ in
                if fail.current { throw Boom() }
            }
            #expect(throws: ResolutionError.self) { try c.bootstrap() }
            fail.withLock { $0 = false }
            try c.bootstrap()
            #expect(builds.value == 2)
            _ = try c.resolve(Impl.self)
            #expect(builds.value == 2)
        }

        /// A value type under weakSingleton is new for every request of one resolve, and validate warns.
        @Test func aValueTypeUnderWeakSingletonIsNewForEveryRequestOfOneResolveAndWarned() throws {
            let c = Container(name: "c")
            let builds = Counter()
            c.register(Value.self, lifetime: .weakSingleton) { _ in Value(id: builds.increment()) }
            c.register(Pair.self) { r in Pair(a: try r.resolve(), b: try r.resolve()) }
            for _ in 0..<3 {
                let pair = try c.resolve(Pair.self)
                #expect(pair.a.id != pair.b.id)
            }
            #expect(builds.value == 6)
            let report = c.validate()
            #expect(report.issues.contains { $0.severity == .warning && $0.key.typeName == "Value" })
            #expect(builds.value >= 6)
        }

        /// A protocol registration whose factory returns a value is unique under weakSingleton, and warned.
        @Test func aProtocolWeakSingletonWhoseFactoryReturnsAValueBehavesAsUniqueAndIsWarned() throws {
            let c = Container(name: "c")
            let builds = Counter()
            c.register((any Sendable).self, lifetime: .weakSingleton) { _ in Value(id: builds.increment()) }
            let a = try c.resolve((any Sendable).self) as? Value
            let b = try c.resolve((any Sendable).self) as? Value
            #expect(a?.id != b?.id)
            #expect(c.validate().issues.contains { $0.severity == .warning })
        }
    }

    /// An eager singleton of a child takes the child's perContainer instance.
    @Suite struct EagerInChild: ProbeFixtures {
        /// bootstrap builds a child's eager singleton from its owner: it gets the child's perContainer instance.
        @Test func bootstrapBuildsAChildsEagerSingletonWithTheChildsPerContainerInstance() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            root.register(Dep.self, lifetime: .perContainer) { _ in Dep() }
            child.register(Holder.self, lifetime: .eagerSingleton) { r in
                let h = Holder()
                h.dep = try r.resolve()
                return h
            }
            try root.bootstrap()
            let h = try child.resolve(Holder.self)
            #expect(h.dep === (try child.resolve(Dep.self)))
            #expect(h.dep !== (try root.resolve(Dep.self)))
        }
    }
}
