import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Lookup order: own registrations, then collaborators in link order, then the parent; each
/// container visited at most once; the error lists the containers searched in that order.
@Suite struct LookupOrderTests {
    /// Registers a `String` answering with the container's name.
    private func answerWithName(_ containers: Container...) { answerWithName(containers) }

    private func answerWithName(_ containers: [Container]) {
        for container in containers {
            let name = container.name
            container.register(String.self) { _ in name }
        }
    }

    private func searched(resolvingFrom container: Container) throws -> [String] {
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Int.self) }
        #expect(error.kind.caseName == "notRegistered")
        return error.searched
    }

    /// A root with a child "feature" that collaborates with "partner" (returned: collaboration
    /// links are weak, so a partner nobody holds would be gone).
    private func featureWithAPartner() -> (root: Container, feature: Container, partner: Container) {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let partner = Container(name: "partner")
        feature.collaborate(with: partner)
        return (root, feature, partner)
    }

    /// The feature's own registration wins over its collaborator's and its parent's; without
    /// it, the collaborator's wins over the parent's.
    @Test(arguments: [(["root", "partner", "feature"], "feature"), (["root", "partner"], "partner")])
    func ownRegistrationWinsOverCollaboratorsAndCollaboratorsOverTheParent(
        registeredIn names: [String], answer: String
    ) throws {
        let (root, feature, partner) = featureWithAPartner()
        answerWithName([root, partner, feature].filter { names.contains($0.name) })
        #expect(try feature.resolve(String.self) == answer)
    }

    /// A key neither the container nor its (live) collaborator registers is answered by the
    /// parent; a missing key is looked for in all three, in that order.
    @Test func theParentAnswersWhenNeitherTheContainerNorItsCollaboratorsDo() throws {
        let (root, feature, partner) = featureWithAPartner()
        answerWithName(root)
        #expect(try feature.resolve(String.self) == "root")
        #expect(try searched(resolvingFrom: feature) == ["feature", "partner", "root"])
        withExtendedLifetime(partner) {}
    }

    @Test func ancestorsAreVisitedNearestFirst() throws {
        let root = Container(name: "root")
        let middle = root.makeChild(name: "middle")
        let leaf = middle.makeChild(name: "leaf")
        answerWithName(root, middle)
        #expect(try leaf.resolve(String.self) == "middle")
        #expect(try searched(resolvingFrom: leaf) == ["leaf", "middle", "root"])
    }

    /// How "feature" is linked to "first" and then "second".
    enum Linking: CaseIterable, Sendable {
        /// One link at a time, in that order.
        case oneAfterTheOther
        /// Both at once, then both again in the reverse order: relinking moves nothing.
        case relinkedInReverse
    }

    @Test(arguments: Linking.allCases)
    func collaboratorsAreVisitedInTheOrderTheyWereFirstLinked(linking: Linking) throws {
        let feature = Container(name: "feature")
        let first = Container(name: "first")
        let second = Container(name: "second")
        switch linking {
        case .oneAfterTheOther:
            feature.collaborate(with: first)
            feature.collaborate(with: second)
        case .relinkedInReverse:
            feature.collaborate(with: first, second)
            feature.collaborate(with: second, first)
        }
        answerWithName(second, first)
        #expect(try feature.resolve(String.self) == "first")
        #expect(try searched(resolvingFrom: feature) == ["feature", "first", "second"])
    }

    @Test func aCollaboratorIsVisitedWithItsOwnCollaboratorsAndParentBeforeTheNextOne() throws {
        // visit(C) is recursive: C's collaborators and C's parent come before N's next link.
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let otherRoot = Container(name: "otherRoot")
        let partner = otherRoot.makeChild(name: "partner")
        let partnerLink = Container(name: "partnerLink")
        let second = Container(name: "second")
        partner.collaborate(with: partnerLink)
        feature.collaborate(with: partner, second)
        #expect(
            try searched(resolvingFrom: feature)
                == ["feature", "partner", "partnerLink", "otherRoot", "second", "root"])
        answerWithName(second, otherRoot)
        #expect(try feature.resolve(String.self) == "otherRoot")
    }

    @Test func eachContainerIsVisitedOnceWhenPathsMeet() throws {
        // feature and its collaborator share the parent: it is searched once, via the collaborator.
        let (_, feature, sibling) = Container.rootWithTwoChildren("feature", "sibling")
        let shared = Container(name: "shared-lib")
        feature.collaborate(with: sibling, shared)
        sibling.collaborate(with: shared)
        #expect(try searched(resolvingFrom: feature) == ["feature", "sibling", "shared-lib", "root"])
    }

    @Test func cyclicLinksTerminate() throws {
        let a = Container(name: "a")
        let b = Container(name: "b")
        let c = Container(name: "c")
        a.collaborate(with: b)
        b.collaborate(with: c)
        c.collaborate(with: a)
        #expect(try searched(resolvingFrom: a) == ["a", "b", "c"])
        #expect(try searched(resolvingFrom: c) == ["c", "a", "b"])
        answerWithName(c)
        #expect(try a.resolve(String.self) == "c")
    }

    @Test func aSelfLinkAddsNothingToTheWalk() throws {
        let root = Container(name: "root")
        let a = root.makeChild(name: "a")
        a.collaborate(with: a)
        #expect(try searched(resolvingFrom: a) == ["a", "root"])
    }

    @Test func aDuplicateLinkAddsNothingToTheWalk() throws {
        let a = Container(name: "a")
        let b = Container(name: "b")
        a.collaborate(with: b, b)
        a.collaborate(with: b)
        #expect(try searched(resolvingFrom: a) == ["a", "b"])
    }

    @Test func linksAreOneWay() throws {
        let a = Container(name: "a")
        let b = Container(name: "b")
        a.collaborate(with: b)
        answerWithName(a)
        #expect(try searched(resolvingFrom: b) == ["b"])
        let error = try #require(throws: ResolutionError.self) { _ = try b.resolve(String.self) }
        #expect(error.kind.caseName == "notRegistered")
        b.collaborate(with: a)
        #expect(try b.resolve(String.self) == "a")
    }

    @Test func theWalkNeverVisitsChildrenOrSiblings() throws {
        let (root, feature, sibling) = Container.rootWithTwoChildren("feature", "sibling")
        let nested = feature.makeChild(name: "nested")
        answerWithName(sibling, nested)
        #expect(try searched(resolvingFrom: feature) == ["feature", "root"])
        #expect(throws: ResolutionError.self) { _ = try feature.resolve(String.self) }
        #expect(throws: ResolutionError.self) { _ = try root.resolve(String.self) }
    }

    @Test func aRegistrationAddedNearerAfterAResolveAnswersTheNextLookup() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        answerWithName(root)
        #expect(try feature.resolve(String.self) == "root")
        answerWithName(feature)
        #expect(try feature.resolve(String.self) == "feature")
    }

    @Test func aCollaboratorLinkedAfterAResolveAnswersTheNextLookup() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let partner = Container(name: "partner")
        answerWithName(root, partner)
        #expect(try feature.resolve(String.self) == "root")
        feature.collaborate(with: partner)
        #expect(try feature.resolve(String.self) == "partner")
    }

    @Test func aDeallocatedCollaboratorNoLongerAnswers() throws {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        answerWithName(root)
        do {
            let partner = Container(name: "partner")
            answerWithName(partner)
            feature.collaborate(with: partner)
            #expect(try feature.resolve(String.self) == "partner")
        }
        #expect(try feature.resolve(String.self) == "root")
        #expect(try searched(resolvingFrom: feature) == ["feature", "root"])
    }

    @Test func theDescendantsOfAContainerSeeARegistrationAddedToItLater() throws {
        let root = Container(name: "root")
        let middle = root.makeChild(name: "middle")
        let leaf = middle.makeChild(name: "leaf")
        answerWithName(root)
        #expect(try leaf.resolve(String.self) == "root")
        answerWithName(middle)
        #expect(try leaf.resolve(String.self) == "middle")
    }

    private final class Session: Sendable {}
    private final class Shared: Sendable {}

    /// Children without registrations or links answer exactly as their parent does, while
    /// `perContainer` instances stay per child, and the child's own registrations win as soon as
    /// it has some (and stop when they are removed).
    @Test func anEmptyChildAnswersAsItsParentAndKeepsItsOwnPerContainerInstances() throws {
        let root = Container(name: "root")
        root.register(Shared.self, lifetime: .singleton) { _ in Shared() }
        root.register(Session.self, lifetime: .perContainer) { _ in Session() }
        let shared = try root.resolve(Shared.self)
        let rootSession = try root.resolve(Session.self)
        let first = root.makeChild(name: "first")
        let second = first.makeChild(name: "second")
        for _ in 0..<3 {
            #expect(try first.resolve(Shared.self) === shared)
            #expect(try second.resolve(Shared.self) === shared)
        }
        let firstSession = try first.resolve(Session.self)
        let secondSession = try second.resolve(Session.self)
        #expect(firstSession !== rootSession)
        #expect(secondSession !== rootSession && secondSession !== firstSession)
        #expect(try first.resolve(Session.self) === firstSession)
        #expect(try second.resolve(Session.self) === secondSession)

        let local = first.register(Shared.self, lifetime: .singleton) { _ in Shared() }
        let firstShared = try first.resolve(Shared.self)
        #expect(firstShared !== shared)
        #expect(try second.resolve(Shared.self) === firstShared)
        first.remove(local)
        #expect(try first.resolve(Shared.self) === shared)
        #expect(try second.resolve(Shared.self) === shared)
    }
}

// MARK: Warm lookups see later changes anywhere on the walk

extension LookupOrderTests {
    /// Memoized lookups forget changes in collaborators' parents, transitive links and freed containers.
    @Suite struct WarmLookups {
        final class K: Sendable {
            let from: String
            init(_ from: String) { self.from = from }
        }

        private func warm(_ c: Container, _ tag: ServiceTag? = nil, _ times: Int = 6) throws -> String {
            var last = ""
            for _ in 0..<times { last = try c.resolve(K.self, tag: tag).from }
            return last
        }

        /// A warm lookup (tagged or not) sees a registration added later to a collaborator's parent.
        @Test(arguments: [nil, ServiceTag("t")])
        func aCollaboratorsParentRegisteringLaterAnswersAWarmLookup(tag: ServiceTag?) throws {
            let root = Container(name: "root")
            let a = root.makeChild(name: "a")
            let p = Container(name: "p")
            let b = p.makeChild(name: "b")
            a.collaborate(with: b)
            root.register(K.self, tag: tag, lifetime: .singleton) { _ in K("root") }
            #expect(try warm(a, tag) == "root")
            p.register(K.self, tag: tag) { _ in K("p") }
            #expect(try warm(a, tag) == "p")
        }

        /// A warm lookup sees registrations, removeAll and new links two links away.
        @Test func aWarmLookupSeesChangesThroughTransitiveLinks() throws {
            let root = Container(name: "root")
            let a = root.makeChild(name: "a")
            let b = Container(name: "b")
            let c = Container(name: "c")
            a.collaborate(with: b)
            b.collaborate(with: c)
            root.register(K.self) { _ in K("root") }
            #expect(try warm(a) == "root")
            c.register(K.self) { _ in K("c") }
            #expect(try warm(a) == "c")
            let d = Container(name: "d")
            d.register(K.self) { _ in K("d") }
            let e = Container(name: "e")
            e.collaborate(with: d)
            c.removeAll()
            #expect(try warm(a) == "root")
            b.collaborate(with: e)
            #expect(try warm(a) == "d")
        }

        /// A warm lookup stops answering from a collaborator two links away once it is freed.
        @Test func aWarmLookupForgetsACollaboratorTwoLinksAwayWhenItIsFreed() throws {
            let root = Container(name: "root")
            let a = root.makeChild(name: "a")
            let b = Container(name: "b")
            var c: Container? = Container(name: "c")
            a.collaborate(with: b)
            b.collaborate(with: c!)
            root.register(K.self, lifetime: .singleton) { _ in K("root") }
            c!.register(K.self, lifetime: .singleton) { _ in K("c") }
            #expect(try warm(a) == "c")
            c = nil
            #expect(try warm(a) == "root")
        }

        /// Empty descendants with warm lookups see a perContainer registration added to their parent's collaborator.
        @Test func emptyDescendantsSeeARegistrationAddedToTheirParentsCollaborator() throws {
            let root = Container(name: "root")
            let p = root.makeChild(name: "p")
            let t = p.makeChild(name: "t")
            let g = t.makeChild(name: "g")
            let q = Container(name: "q")
            p.collaborate(with: q)
            root.register(K.self, lifetime: .perContainer) { r in K("root:" + r.container.name) }
            #expect(try warm(g) == "root:g")
            #expect(try warm(t) == "root:t")
            q.register(K.self, lifetime: .perContainer) { r in K("q:" + r.container.name) }
            #expect(try warm(g) == "q:g")
            #expect(try warm(t) == "q:t")
            #expect(try warm(p) == "q:p")
            t.register(K.self) { _ in K("t") }
            #expect(try warm(g) == "t")
        }

        /// remove releases the perContainer instance a linking container cached for the registration.
        @Test func removeReleasesPerContainerInstancesCachedThroughALink() throws {
            let a = Container(name: "a")
            let b = Container(name: "b")
            a.collaborate(with: b)
            let reg = b.register(K.self, lifetime: .perContainer) { r in K(r.container.name) }
            weak var inA: K?
            for _ in 0..<6 { inA = try a.resolve(K.self) }
            #expect(inA?.from == "a")
            let inB = try b.resolve(K.self)
            #expect(inB !== inA)
            b.remove(reg)
            #expect(inA == nil)
            #expect(try a.resolveIfRegistered(K.self) == nil)
        }

        /// Warm lookups of keys with arguments and of tagged forwards see a nearer registration and a removal.
        @Test func warmLookupsOfArgumentAndForwardedKeysSeeReplacementsAndRemovals() throws {
            let root = Container(name: "root")
            let a = root.makeChild(name: "a")
            root.register(K.self, tag: "x") { (_, s: String) in K("root" + s) }
            for _ in 0..<6 { #expect(try a.resolve(K.self, tag: "x", arguments: "!").from == "root!") }
            a.register(K.self, tag: "x") { (_, s: String) in K("a" + s) }
            #expect(try a.resolve(K.self, tag: "x", arguments: "!").from == "a!")
            root.register(String.self) { _ in "s" }
            let fwd = a.register(K.self, tag: "f") { _ in K("fwd") }
            fwd.implements(K.self, tag: "g")
            for _ in 0..<6 { #expect(try a.resolve(K.self, tag: "g").from == "fwd") }
            a.remove(fwd)
            root.register(K.self, tag: "g") { _ in K("root-g") }
            #expect(try a.resolve(K.self, tag: "g").from == "root-g")
        }
    }
}
