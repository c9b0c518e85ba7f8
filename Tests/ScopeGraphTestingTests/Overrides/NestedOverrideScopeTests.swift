import ScopeGraph
import ScopeGraphTestSupport
import ScopeGraphTesting
import Synchronization
import Testing

/// Override scopes entered while a resolve is in progress: inside a factory or an `onResolved`
/// block, with or without a scope around the top-level resolve.
///
/// Backs "Scopes nest; the innermost override wins" and "an override made on container C is
/// consulted whenever a lookup visits C" for the resolves a factory makes, through
/// `container.resolve` (which joins the resolve in progress) and through its `Resolver`.
/// Reproductions of a known bug of the engine: the scope entered during the resolve is ignored.
@Suite struct NestedOverrideScopeTests {
    /// What a factory saw, for the tests that look at several resolves at once.
    struct Seen: Sendable, Equatable {
        var inside: String
        var outerOnly: Int
        var throughResolver: String
        var after: String
    }

    /// Set by an `onResolved` block.
    final class Note: Sendable {
        let text = Mutex("")
    }

    /// Through the container or through the factory's own resolver.
    @Test(arguments: [false, true])
    func aScopeEnteredInsideAFactoryAnswersTheFactorysResolves(throughItsResolver: Bool) throws {
        let c = Container(name: "app")
        c.register(String.self) { _ in "real" }
        c.register(Substring.self) { [unowned c] r in
            try c.withOverrides({ $0.register(String.self) { _ in "fake" } }) {
                Substring(throughItsResolver ? try r.resolve(String.self) : try c.resolve(String.self))
            }
        }
        let answer = try c.resolve(Substring.self)
        #expect(answer == "fake")
        #expect(try c.resolve(String.self) == "real", "the scope ended with the factory")
    }

    @Test func aScopeEnteredInsideAnOnResolvedBlockAnswersTheBlocksResolves() throws {
        let c = Container(name: "app")
        c.register(String.self) { _ in "real" }
        c.register(Note.self) { _ in Note() }
            .onResolved { [unowned c] r, note in
                let seen = try c.withOverrides({ $0.register(String.self) { _ in "fake" } }) {
                    "\(try c.resolve(String.self)) \(try r.resolve(String.self))"
                }
                note.text.withLock { $0 = seen }
            }
        let note = try c.resolve(Note.self)
        #expect(note.text.withLock { $0 } == "fake fake")
    }

    @Test func theFactorysScopeEndsWhenItsOperationReturns() throws {
        // `String` is `unique`, so the resolves before and after the scope are not shared with
        // the one inside it.
        let c = Container(name: "app")
        c.register(String.self, lifetime: .unique) { _ in "real" }
        c.register(Substring.self) { [unowned c] r in
            let before = try c.resolve(String.self)
            let inside = try c.withOverrides({ $0.register(String.self) { _ in "fake" } }) {
                try r.resolve(String.self)
            }
            let after = try r.resolve(String.self)
            return Substring("\(before) \(inside) \(after)")
        }
        let answer = try c.resolve(Substring.self)
        #expect(answer == "real fake real")
    }

    @Test func insideAnOuterScopeTheFactorysInnerScopeWinsAndTheOuterOverridesStillAnswer() throws {
        let c = Container(name: "app")
        c.register(String.self, lifetime: .unique) { _ in "real" }
        c.register(Int.self) { _ in 0 }
        c.register(Seen.self) { [unowned c] r in
            let (inside, outerOnly, throughResolver) = try c.withOverrides {
                $0.register(String.self) { _ in "inner" }
            } operation: {
                (try c.resolve(String.self), try c.resolve(Int.self), try r.resolve(String.self))
            }
            return Seen(
                inside: inside, outerOnly: outerOnly, throughResolver: throughResolver,
                after: try c.resolve(String.self))
        }
        let seen = try c.withOverrides {
            $0.register(String.self, lifetime: .unique) { _ in "outer" }
            $0.register(Int.self) { _ in 42 }
        } operation: {
            try c.resolve(Seen.self)
        }
        #expect(seen.inside == "inner", "the innermost override wins")
        #expect(seen.throughResolver == "inner", "the innermost override wins through the Resolver too")
        #expect(seen.outerOnly == 42, "a key overridden only by the outer scope is still overridden inside the inner")
        #expect(seen.after == "outer", "after the inner scope ends, the outer one answers again")
        let unscoped = try c.resolve(Seen.self)
        #expect(unscoped == Seen(inside: "inner", outerOnly: 0, throughResolver: "inner", after: "real"))
    }

    @Test func aCachedLifetimeBuiltInTheFactorysScopeSeesItsOverridesAndStaysOutOfTheContainer() throws {
        // "every cached lifetime resolved inside it is cached in the scope": a singleton that
        // depends on the overridden key, resolved inside the factory's scope, gets the fake, and
        // the container's own singleton is built from the real one afterwards.
        let c = Container(name: "app")
        c.register(String.self) { _ in "real" }
        c.register(Note.self, lifetime: .singleton) { r in
            let note = Note()
            let text = try r.resolve(String.self)
            note.text.withLock { $0 = text }
            return note
        }
        c.register(Substring.self) { [unowned c] _ in
            try c.withOverrides({ $0.register(String.self) { _ in "fake" } }) {
                Substring(try c.resolve(Note.self).text.withLock { $0 })
            }
        }
        let answer = try c.resolve(Substring.self)
        #expect(answer == "fake")
        let outside = try c.resolve(Note.self).text.withLock { $0 }
        #expect(outside == "real", "the scope's singleton leaked into the container")
    }
}
