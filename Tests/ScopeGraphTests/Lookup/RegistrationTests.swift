import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Registration: keys (type, tag, argument types), tags, last wins, `remove`, `removeAll`,
/// runtime arguments through parameter packs.
@Suite struct RegistrationTests {
    final class Service: Sendable {
        let label: String
        init(_ label: String) { self.label = label }
    }

    final class Session: Sendable {
        let values: [String]
        init(_ values: [String]) { self.values = values }
    }

    enum Store: String { case cache, archive }

    // MARK: Tags

    @Test func tagsFromStringLiteralsIntegerLiteralsAndEnumsAreComparedByName() {
        let fromString: ServiceTag = "primary"
        let fromInteger: ServiceTag = 2
        #expect(fromString == ServiceTag("primary"))
        #expect(fromInteger == ServiceTag("2"))
        #expect(ServiceTag(Store.cache) == ServiceTag("cache"))
        #expect(ServiceTag(Store.cache) != ServiceTag(Store.archive))
        #expect(fromString != ServiceTag("secondary"))
    }

    @Test func equalTagsMadeApartHashAlikeAndFindEachOthersRegistrations() throws {
        // A tag hashes its name once, when made: tags made separately must still agree.
        let names = (0..<200).map { "tag-\($0)" }
        let made = Set(names.map { ServiceTag($0) })
        #expect(made.count == names.count)
        for name in names {
            #expect(made.contains(ServiceTag(name)))
            #expect(ServiceTag(name).hashValue == ServiceTag(stringLiteral: name).hashValue)
        }
        let container = Container()
        for name in names { container.register(Service.self, tag: ServiceTag(name)) { _ in Service(name) } }
        for name in names.reversed() {
            #expect(try container.resolve(Service.self, tag: ServiceTag(name)).label == name)
        }
    }

    @Test func differentTagsAreDifferentKeys() throws {
        let container = Container(name: "root")
        container.register(Service.self) { _ in Service("untagged") }
        container.register(Service.self, tag: "primary") { _ in Service("primary") }
        container.register(Service.self, tag: 7) { _ in Service("seven") }
        container.register(Service.self, tag: ServiceTag(Store.archive)) { _ in Service("archive") }
        #expect(try container.resolve(Service.self).label == "untagged")
        #expect(try container.resolve(Service.self, tag: "primary").label == "primary")
        #expect(try container.resolve(Service.self, tag: 7).label == "seven")
        #expect(try container.resolve(Service.self, tag: "7").label == "seven")
        #expect(try container.resolve(Service.self, tag: ServiceTag(Store.archive)).label == "archive")
        #expect(try container.resolve(Service.self, tag: "archive").label == "archive")
    }

    @Test func aTaggedRequestDoesNotFallBackToTheUntaggedRegistration() throws {
        let container = Container(name: "root")
        container.register(Service.self) { _ in Service("untagged") }
        let error = try #require(throws: ResolutionError.self) {
            _ = try container.resolve(Service.self, tag: "primary")
        }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.key == ServiceKey(typeName: "Service", tag: "primary"))
        let mentionsUntagged = error.suggestions.contains { suggestion in
            ["without a tag", "untagged", "no tag"].contains { suggestion.contains($0) }
        }
        #expect(mentionsUntagged, "suggestions: \(error.suggestions)")
    }

    @Test func anUntaggedRequestDoesNotFallBackToATaggedRegistration() throws {
        let container = Container(name: "root")
        container.register(Service.self, tag: "primary") { _ in Service("primary") }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Service.self) }
        #expect(error.kind.caseName == "notRegistered")
        #expect(error.suggestions.contains { $0.contains("\"primary\"") }, "suggestions: \(error.suggestions)")
    }

    // MARK: Registration handle

    @Test func theHandleReportsItsKeyAndLifetime() {
        let container = Container(name: "root")
        let plain = container.register(Service.self) { _ in Service("x") }
        let tagged = container.register(Service.self, tag: "x", lifetime: .singleton) { _ in Service("x") }
        let withArguments = container.register(Service.self, tag: "x", lifetime: .unique) { (_, n: Int, s: String) in
            Service("\(n)\(s)")
        }
        #expect(plain.key == ServiceKey(typeName: "Service"))
        #expect(plain.lifetime == .graph)
        #expect(tagged.key == ServiceKey(typeName: "Service", tag: "x"))
        #expect(tagged.lifetime == .singleton)
        #expect(withArguments.key == ServiceKey(typeName: "Service", tag: "x", argumentTypeNames: ["Int", "String"]))
        #expect(withArguments.lifetime == .unique)
    }

    @Test func theTypeIsInferredFromTheFactoryWhenOmitted() throws {
        let container = Container(name: "root")
        let registration = container.register { _ in Service("inferred") }
        #expect(registration.key == ServiceKey(typeName: "Service"))
        let service: Service = try container.resolve()
        #expect(service.label == "inferred")
    }

    // MARK: Last wins

    @Test func registeringTheSameKeyAgainReplacesTheEarlierRegistration() throws {
        let container = Container(name: "root")
        container.register(Service.self) { _ in Service("first") }
        container.register(Service.self) { _ in Service("second") }
        #expect(try container.resolve(Service.self).label == "second")
    }

    @Test func replacingASingletonDropsItsCachedInstance() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .singleton, counting: runs) { Service("first") }
        weak var weakFirst: Service?
        do {
            let first = try container.resolve(Service.self)
            weakFirst = first
            #expect(first.label == "first")
        }
        #expect(weakFirst != nil)
        container.register(Service.self, lifetime: .singleton) { _ in Service("second") }
        #expect(weakFirst == nil)
        #expect(try container.resolve(Service.self).label == "second")
        #expect(runs.value == 1)
    }

    @Test func replacingAPerContainerRegistrationDropsTheInstancesCachedInChildren() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(Service.self, lifetime: .perContainer) { _ in Service("first") }
        weak var weakFirst: Service?
        do { weakFirst = try child.resolve(Service.self) }
        #expect(weakFirst != nil)
        root.register(Service.self, lifetime: .perContainer) { _ in Service("second") }
        #expect(weakFirst == nil)
        #expect(try child.resolve(Service.self).label == "second")
    }

    @Test func replacingOnlyAffectsTheSameKey() throws {
        let container = Container(name: "root")
        container.register(Service.self) { _ in Service("untagged") }
        container.register(Service.self, tag: "x") { _ in Service("tagged") }
        container.register(Service.self) { (_, n: Int) in Service("argument \(n)") }
        container.register(Service.self) { _ in Service("untagged again") }
        #expect(try container.resolve(Service.self).label == "untagged again")
        #expect(try container.resolve(Service.self, tag: "x").label == "tagged")
        #expect(try container.resolve(Service.self, tag: nil, arguments: 1).label == "argument 1")
    }

    @Test func registeringInAChildShadowsTheParentWithoutReplacingIt() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(Service.self) { _ in Service("root") }
        child.register(Service.self) { _ in Service("child") }
        #expect(try child.resolve(Service.self).label == "child")
        #expect(try root.resolve(Service.self).label == "root")
    }

    // MARK: Changes after resolves

    /// How often a key is resolved before a change: once (its lookup is not memoized yet),
    /// twice (memoized, pending), and more (in the memo snapshot), with and without a tag.
    static let resolveCounts: [(tag: ServiceTag?, resolves: Int)] = [
        (nil, 1), (nil, 2), (nil, 3), (nil, 40), ("t", 1), ("t", 2), ("t", 3), ("t", 40),
    ]

    @Test func taggedKeysResolvedOftenKeepTheirLifetimesAndStayApart() throws {
        // Past its first lookups a tagged key is read on the inlined path, like an untagged one.
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let runs = Counter()
        root.register(Service.self, tag: "shared", lifetime: .singleton, counting: runs) { Service("shared") }
        root.register(Service.self, tag: "fresh", lifetime: .unique) { _ in Service("fresh") }
        root.register(Service.self, tag: "node", lifetime: .graph) { _ in Service("node") }
        root.register([Service].self, lifetime: .unique) { r in
            [try r.resolve(tag: "node"), try r.resolve(tag: "node"), try r.resolve(tag: "fresh")]
        }
        let singleton = try root.resolve(Service.self, tag: "shared")
        var lastFresh: Service?
        var lastNode: Service?
        for _ in 0..<40 {
            #expect(try child.resolve(Service.self, tag: "shared") === singleton)
            let fresh = try child.resolve(Service.self, tag: "fresh")
            #expect(fresh.label == "fresh" && fresh !== lastFresh)
            lastFresh = fresh
            let trio = try child.resolve([Service].self)
            #expect(trio[0] === trio[1] && trio[0].label == "node" && trio[0] !== lastNode)
            #expect(trio[2].label == "fresh")
            lastNode = trio[0]
        }
        #expect(runs.value == 1)
    }

    @Test(arguments: resolveCounts)
    func replacingAKeyAfterItWasResolvedAnswersWithTheReplacement(tag: ServiceTag?, resolves: Int) throws {
        let container = Container(name: "root")
        container.register(Service.self, tag: tag, lifetime: .unique) { _ in Service("first") }
        for _ in 0..<resolves { #expect(try container.resolve(Service.self, tag: tag).label == "first") }
        container.register(Service.self, tag: tag, lifetime: .unique) { _ in Service("second") }
        #expect(try container.resolve(Service.self, tag: tag).label == "second")
        #expect(try container.resolve(Service.self, tag: tag).label == "second")
    }

    @Test(arguments: resolveCounts)
    func removingAKeyAfterItWasResolvedMakesItUnregistered(tag: ServiceTag?, resolves: Int) throws {
        let container = Container(name: "root")
        let registration = container.register(Service.self, tag: tag, lifetime: .unique) { _ in Service("x") }
        for _ in 0..<resolves { _ = try container.resolve(Service.self, tag: tag) }
        container.remove(registration)
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Service.self, tag: tag) }
        #expect(error.kind.caseName == "notRegistered")
    }

    @Test(arguments: resolveCounts)
    func aRegistrationAddedToAResolvedContainerIsFoundAndShadowsItsParent(tag: ServiceTag?, resolves: Int) throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(Service.self, tag: tag, lifetime: .unique) { _ in Service("root") }
        child.register(Service.self, tag: "other", lifetime: .unique) { _ in Service("other") }
        for _ in 0..<resolves {
            #expect(try child.resolve(Service.self, tag: tag).label == "root")
            #expect(try child.resolve(Service.self, tag: "other").label == "other")
        }
        child.register(Service.self, tag: tag, lifetime: .unique) { _ in Service("child") }
        #expect(try child.resolve(Service.self, tag: tag).label == "child")
        #expect(try child.resolve(Service.self, tag: "other").label == "other")
        #expect(try root.resolve(Service.self, tag: tag).label == "root")
    }

    @Test(arguments: resolveCounts)
    func aRegistrationAddedToAParentReachesAGrandchildThatResolvedFromTheRoot(tag: ServiceTag?, resolves: Int)
        throws
    {
        let root = Container(name: "root")
        let parent = root.makeChild(name: "parent")
        parent.register(Int.self) { _ in 0 }  // not transparent: its lookups are its own
        let grandchild = parent.makeChild(name: "grandchild")
        grandchild.register(Int.self) { _ in 1 }
        root.register(Service.self, tag: tag, lifetime: .unique) { _ in Service("root") }
        for _ in 0..<resolves { #expect(try grandchild.resolve(Service.self, tag: tag).label == "root") }
        parent.register(Service.self, tag: tag, lifetime: .unique) { _ in Service("parent") }
        #expect(try grandchild.resolve(Service.self, tag: tag).label == "parent")
    }

    @Test(arguments: resolveCounts)
    func aPerContainerInstanceResolvedAfterEarlierLookupsIsCachedAndReleasedByRemove(
        tag: ServiceTag?, resolves: Int
    ) throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        child.register(Int.self) { _ in 1 }
        let runs = Counter()
        let registration = root.register(Service.self, tag: tag, lifetime: .perContainer) { _ in
            runs.increment()
            return Service("x")
        }
        weak var weakService: Service?
        do {
            let first = try child.resolve(Service.self, tag: tag)
            weakService = first
            for _ in 1..<resolves { #expect(try child.resolve(Service.self, tag: tag) === first) }
        }
        #expect(runs.value == 1)
        #expect(weakService != nil)
        root.remove(registration)
        #expect(weakService == nil)
    }

    @Test(arguments: [false, true])
    func manyKeysResolvedRoundAfterRoundKeepAnsweringWithTheirOwnRegistrations(fromAChild: Bool) throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        child.register(Int.self) { _ in 0 }  // not transparent: the child memoizes its own walks
        let lifetimes: [Lifetime] = [.unique, .graph, .singleton, .perContainer]
        let count = 150
        for index in 0..<count {
            root.register(Service.self, tag: ServiceTag("\(index)"), lifetime: lifetimes[index % 4]) { _ in
                Service("\(index)")
            }
        }
        let start = fromAChild ? child : root
        var cached: [Int: Service] = [:]
        // Rounds move the keys from unmemoized to pending to the snapshot, which is rebuilt
        // larger several times on the way.
        for _ in 0..<4 {
            for index in 0..<count {
                let service = try start.resolve(Service.self, tag: ServiceTag("\(index)"))
                #expect(service.label == "\(index)")
                if lifetimes[index % 4] == .singleton || lifetimes[index % 4] == .perContainer {
                    if let earlier = cached[index] { #expect(service === earlier) } else { cached[index] = service }
                }
            }
        }
        for index in stride(from: 0, to: count, by: 3) {
            root.register(Service.self, tag: ServiceTag("\(index)"), lifetime: .unique) { _ in Service("new \(index)") }
        }
        for index in 0..<count {
            let expected = index % 3 == 0 ? "new \(index)" : "\(index)"
            #expect(try start.resolve(Service.self, tag: ServiceTag("\(index)")).label == expected)
        }
    }

    // MARK: remove

    @Test func removeMakesTheKeyUnregistered() throws {
        let container = Container(name: "root")
        let registration = container.register(Service.self) { _ in Service("x") }
        container.remove(registration)
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Service.self) }
        #expect(error.kind.caseName == "notRegistered")
    }

    @Test func removeReleasesTheCachedInstance() throws {
        let container = Container(name: "root")
        let runs = Counter()
        let registration = container.register(Service.self, lifetime: .singleton) { _ in
            runs.increment()
            return Service("x")
        }
        weak var weakService: Service?
        do { weakService = try container.resolve(Service.self) }
        #expect(weakService != nil)
        container.remove(registration)
        #expect(weakService == nil)
        container.register(Service.self, lifetime: .singleton, counting: runs) { Service("y") }
        #expect(try container.resolve(Service.self).label == "y")
        #expect(runs.value == 2)
    }

    @Test func removeReleasesPerContainerInstancesCachedInChildren() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let registration = root.register(Service.self, lifetime: .perContainer) { _ in Service("x") }
        weak var weakService: Service?
        do { weakService = try child.resolve(Service.self) }
        #expect(weakService != nil)
        root.remove(registration)
        #expect(weakService == nil)
    }

    @Test func removingAChildRegistrationUncoversTheParentOne() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(Service.self) { _ in Service("root") }
        let registration = child.register(Service.self) { _ in Service("child") }
        #expect(try child.resolve(Service.self).label == "child")
        child.remove(registration)
        #expect(try child.resolve(Service.self).label == "root")
    }

    @Test func removingAReplacedRegistrationLeavesItsReplacement() throws {
        let container = Container(name: "root")
        let old = container.register(Service.self) { _ in Service("old") }
        container.register(Service.self) { _ in Service("new") }
        container.remove(old)
        #expect(try container.resolve(Service.self).label == "new")
    }

    // MARK: removeAll

    @Test func removeAllDropsEveryRegistrationOfTheContainer() throws {
        let container = Container(name: "root")
        container.register(Service.self) { _ in Service("a") }
        container.register(Service.self, tag: "x") { _ in Service("b") }
        container.register(Session.self) { (_, n: Int) in Session(["\(n)"]) }
        container.removeAll()
        #expect(throws: ResolutionError.self) { _ = try container.resolve(Service.self) }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(Service.self, tag: "x") }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(Session.self, tag: nil, arguments: 1) }
    }

    @Test func removeAllReleasesTheContainersCachedInstances() throws {
        let container = Container(name: "root")
        container.register(Service.self, lifetime: .singleton) { _ in Service("a") }
        weak var weakService: Service?
        do { weakService = try container.resolve(Service.self) }
        #expect(weakService != nil)
        container.removeAll()
        #expect(weakService == nil)
    }

    @Test func removeAllDropsPerContainerInstancesOfAncestorsRegistrations() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        let runs = Counter()
        root.register(Service.self, lifetime: .perContainer) { _ in Service("run \(runs.increment())") }
        weak var weakFirst: Service?
        do {
            let first = try child.resolve(Service.self)
            weakFirst = first
            #expect(try child.resolve(Service.self) === first)
        }
        let rootInstance = try root.resolve(Service.self)
        child.removeAll()
        #expect(weakFirst == nil)
        let second = try child.resolve(Service.self)
        #expect(second.label == "run 3")
        #expect(try root.resolve(Service.self) === rootInstance)
    }

    @Test func removeAllLeavesAncestorsRegistrationsAndInstances() throws {
        let root = Container(name: "root")
        let child = root.makeChild(name: "child")
        root.register(Service.self, lifetime: .singleton) { _ in Service("root") }
        child.register(Service.self, tag: "own") { _ in Service("child") }
        let singleton = try child.resolve(Service.self)
        child.removeAll()
        #expect(try child.resolve(Service.self) === singleton)
        #expect(throws: ResolutionError.self) { _ = try child.resolve(Service.self, tag: "own") }
    }

    // MARK: Runtime arguments

    @Test func aFactoryWithoutArgumentsIsResolvedWithoutArguments() throws {
        let container = Container(name: "root")
        container.register(Session.self) { _ in Session([]) }
        #expect(try container.resolve(Session.self).values == [])
    }

    @Test func oneTwoThreeAndFourArgumentsReachTheFactoryInOrder() throws {
        let container = Container(name: "root")
        container.register(Session.self) { (_, a: Int) in Session(["\(a)"]) }
        container.register(Session.self) { (_, a: Int, b: String) in Session(["\(a)", b]) }
        container.register(Session.self) { (_, a: Int, b: String, c: Double) in Session(["\(a)", b, "\(c)"]) }
        container.register(Session.self) { (_, a: Int, b: String, c: Double, d: Bool) in
            Session(["\(a)", b, "\(c)", "\(d)"])
        }
        #expect(try container.resolve(Session.self, tag: nil, arguments: 1).values == ["1"])
        #expect(try container.resolve(Session.self, tag: nil, arguments: 1, "two").values == ["1", "two"])
        #expect(try container.resolve(Session.self, tag: nil, arguments: 1, "two", 3.5).values == ["1", "two", "3.5"])
        #expect(
            try container.resolve(Session.self, tag: nil, arguments: 1, "two", 3.5, true).values
                == ["1", "two", "3.5", "true"])
    }

    @Test func argumentOrderIsPartOfTheKey() throws {
        let container = Container(name: "root")
        container.register(Session.self) { (_, a: Int, b: String) in Session(["int-first", "\(a)", b]) }
        container.register(Session.self) { (_, a: String, b: Int) in Session(["string-first", a, "\(b)"]) }
        #expect(try container.resolve(Session.self, tag: nil, arguments: 1, "x").values == ["int-first", "1", "x"])
        #expect(try container.resolve(Session.self, tag: nil, arguments: "x", 1).values == ["string-first", "x", "1"])
    }

    @Test func argumentsCombineWithTags() throws {
        let container = Container(name: "root")
        container.register(Session.self, tag: "a") { (_, n: Int) in Session(["a", "\(n)"]) }
        container.register(Session.self, tag: "b") { (_, n: Int) in Session(["b", "\(n)"]) }
        #expect(try container.resolve(Session.self, tag: "b", arguments: 4).values == ["b", "4"])
    }

    @Test func aFactoryCanResolveADependencyWithArgumentsThroughItsResolver() throws {
        let container = Container(name: "root")
        container.register(Session.self) { (_, user: String) in Session([user]) }
        container.register(Service.self) { r in
            let session = try r.resolve(Session.self, tag: nil, arguments: "ada")
            return Service(session.values.joined())
        }
        #expect(try container.resolve(Service.self).label == "ada")
    }

    @Test func otherArgumentTypesThrowArgumentMismatch() throws {
        let container = Container(name: "root")
        container.register(Session.self) { (_, n: Int) in Session(["\(n)"]) }
        let error = try #require(throws: ResolutionError.self) {
            _ = try container.resolve(Session.self, tag: nil, arguments: "not an int")
        }
        #expect(error.kind.caseName == "argumentMismatch")
        #expect(error.key == ServiceKey(typeName: "Session", argumentTypeNames: ["String"]))
        #expect(error.suggestions.contains { $0.contains("Int") }, "suggestions: \(error.suggestions)")
    }

    @Test func resolvingWithoutArgumentsWhenOnlyArgumentsAreRegisteredThrowsArgumentMismatch() throws {
        let container = Container(name: "root")
        container.register(Session.self) { (_, n: Int, s: String) in Session(["\(n)", s]) }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Session.self) }
        #expect(error.kind.caseName == "argumentMismatch")
        #expect(error.hasASuggestionNaming("Int", "String"), "suggestions: \(error.suggestions)")
    }

    @Test func resolvingWithArgumentsWhenNoneAreRegisteredThrowsArgumentMismatch() throws {
        let container = Container(name: "root")
        container.register(Session.self) { _ in Session([]) }
        let error = try #require(throws: ResolutionError.self) {
            _ = try container.resolve(Session.self, tag: nil, arguments: 1)
        }
        #expect(error.kind.caseName == "argumentMismatch")
    }

    @Test func otherArgumentsUnderAnotherTagAreNotAnArgumentMismatch() throws {
        let container = Container(name: "root")
        container.register(Session.self, tag: "other") { (_, n: Int) in Session(["\(n)"]) }
        let error = try #require(throws: ResolutionError.self) {
            _ = try container.resolve(Session.self, tag: nil, arguments: "x")
        }
        #expect(error.kind.caseName == "notRegistered")
    }

    @Test func graphInstancesResolvedWithArgumentsAreNeverShared() throws {
        let container = Container(name: "root")
        container.register(Service.self) { (_, label: String) in Service(label) }
        container.register([Service].self) { r in
            [
                try r.resolve(Service.self, tag: nil, arguments: "same"),
                try r.resolve(Service.self, tag: nil, arguments: "same"),
            ]
        }
        let pair = try container.resolve([Service].self)
        #expect(pair.count == 2)
        #expect(pair[0] !== pair[1])
    }

    @Test func aCachedLifetimeWithArgumentsKeepsTheFirstInstanceBuilt() throws {
        let container = Container(name: "root")
        let runs = Counter()
        container.register(Service.self, lifetime: .singleton) { (_, label: String) in
            runs.increment()
            return Service(label)
        }
        let first = try container.resolve(Service.self, tag: nil, arguments: "first")
        let second = try container.resolve(Service.self, tag: nil, arguments: "second")
        #expect(first === second)
        #expect(second.label == "first")
        #expect(runs.value == 1)
    }
}

// MARK: More runtime arguments, and removeAll with warm lookups

extension RegistrationTests {
    /// Five and six arguments, arguments through forwards; removeAll of perContainer instances after warm lookups.
    @Suite struct ArgumentsAndRemoveAll: ProbeFixtures {
        /// Five and six runtime arguments reach the factory in order; their order is part of the key.
        @Test func fiveAndSixArgumentsReachTheFactoryInOrder() throws {
            let c = Container(name: "c")
            c.register(String.self) { (_, a: Int, b: String, c: Double, d: Bool, e: Character) in "\(a)\(b)\(c)\(d)\(e)"
            }
            c.register(String.self) { (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int) in "\(a + b + c + d + e + f)"
            }
            #expect(try c.resolve(String.self, tag: nil, arguments: 1, "b", 2.5, true, Character("z")) == "1b2.5truez")
            #expect(try c.resolve(String.self, tag: nil, arguments: 1, 2, 3, 4, 5, 6) == "21")
            let e = try #require(throws: ResolutionError.self) {
                _ = try c.resolve(String.self, tag: nil, arguments: "b", 1, 2.5, true, Character("z"))
            }
            #expect(e.kind.caseName == "argumentMismatch")
        }

        /// A tagged forward of a registration with arguments resolves through a resolver with those arguments.
        @Test func aTaggedForwardWithArgumentsResolvesThroughAResolver() throws {
            let c = Container(name: "c")
            c.register(NamedPlugin.self, tag: "t") { (_, a: String, b: Int) in NamedPlugin("\(a)\(b)") }
                .implements((any Plugin).self, tag: "u")
            c.register(Top.self) { r in
                let p = try r.resolve((any Plugin).self, tag: "u", arguments: "x", 7)
                #expect(p.name == "x7")
                return Top()
            }
            _ = try c.resolve(Top.self)
        }

        /// removeAll on a parent releases perContainer instances its children cached for its registrations.
        @Test func removeAllReleasesPerContainerInstancesThatChildrenCachedForItsRegistrations() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            root.register(Impl.self, lifetime: .perContainer) { _ in Impl() }
            weak var old: Impl?
            for _ in 0..<4 { old = try child.resolve(Impl.self) }
            root.removeAll()
            #expect(old == nil)
            root.register(Impl.self, lifetime: .perContainer) { _ in Impl() }
            #expect(try child.resolve(Impl.self) !== old)
        }

        /// removeAll on an empty child with warm lookups drops its own perContainer instance, not the parent's.
        @Test func removeAllOnAnEmptyChildWithWarmLookupsDropsOnlyItsOwnPerContainerInstance() throws {
            let root = Container(name: "root")
            let child = root.makeChild(name: "child")
            root.register(Impl.self, lifetime: .perContainer) { _ in Impl() }
            let rootOne = try root.resolve(Impl.self)
            weak var old: Impl?
            for _ in 0..<4 { old = try child.resolve(Impl.self) }
            child.removeAll()
            #expect(old == nil)
            let fresh = try child.resolve(Impl.self)
            #expect(fresh !== rootOne)
            #expect(try child.resolve(Impl.self) === fresh)
            #expect(try root.resolve(Impl.self) === rootOne)
        }
    }
}
