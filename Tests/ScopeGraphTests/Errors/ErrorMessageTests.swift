import ScopeGraph
import ScopeGraphTestSupport
import Testing

private final class EDatabase: Sendable {}
private final class ERepository: Sendable {}
private final class ESession: Sendable {}
private final class EAnalytics: Sendable {}
private final class EImplementation: Sendable {}
private protocol EProtocol: Sendable {}
private final class LiveEProtocol: EProtocol {}
private enum EFirst { final class Thing: Sendable {} }
private enum ESecond { final class Thing: Sendable {} }
private struct EDiskFull: Error, CustomStringConvertible {
    var description: String { "disk full" }
}

/// A failing resolve and the exact lines its error prints.
struct MessageCase: Sendable, CustomStringConvertible {
    let name: String
    let lines: [String]
    let resolve: @Sendable () throws -> Void

    var description: String { name }

    /// The description of the error `resolve` throws.
    func message() -> String {
        do {
            try resolve()
            return "no error"
        } catch {
            return String(describing: error)
        }
    }
}

@Suite struct ErrorMessageTests {
    /// Every kind of resolution error and every kind of suggestion, worded exactly: changing a
    /// message means changing this table.
    static let cases: [MessageCase] = [
        MessageCase(
            name: "nothing registered, nothing close",
            lines: [
                "ResolutionError: nothing is registered for EDatabase.",
                "  path: EDatabase",
                "  searched: feature -> app",
                "  suggestion: register it with feature.register(EDatabase.self) { r in … }.",
            ],
            resolve: {
                let app = Container(name: "app")
                _ = try app.makeChild(name: "feature").resolve(EDatabase.self)
            }),
        MessageCase(
            name: "an implementation registered under its own type only",
            lines: [
                "ResolutionError: nothing is registered for EProtocol.",
                "  path: ERepository -> EProtocol",
                "  searched: app",
                "  suggestion: 'app' registers LiveEProtocol: if it is meant to answer for EProtocol, add .implements(EProtocol.self) to that registration.",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(LiveEProtocol.self) { _ in LiveEProtocol() }
                app.register(ERepository.self) { r in
                    _ = try r.resolve((any EProtocol).self)
                    return ERepository()
                }
                _ = try app.resolve(ERepository.self)
            }),
        MessageCase(
            name: "same type under another tag",
            lines: [
                #"ResolutionError: nothing is registered for EDatabase[tag: "replica"]."#,
                #"  path: EDatabase[tag: "replica"]"#,
                "  searched: app",
                #"  suggestion: 'app' registers EDatabase[tag: "primary"]: there is no fallback between tags; ask for tag "primary", or register EDatabase[tag: "replica"]."#,
                "  suggestion: 'app' registers EDatabase: there is no fallback between tags; ask for it without a tag, or register EDatabase[tag: \"replica\"].",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(EDatabase.self, tag: "primary") { _ in EDatabase() }
                app.register(EDatabase.self) { _ in EDatabase() }
                _ = try app.resolve(EDatabase.self, tag: "replica")
            }),
        MessageCase(
            name: "other argument types",
            lines: [
                "ResolutionError: nothing is registered for ESession(String); ESession is registered only with other runtime argument types.",
                "  path: ESession(String)",
                "  searched: app",
                "  suggestion: 'app' registers ESession(Int, String): resolve it with arguments of exactly those types, in that order.",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(ESession.self) { (_, _: Int, _: String) in ESession() }
                _ = try app.resolve(ESession.self, tag: nil, arguments: "token")
            }),
        MessageCase(
            name: "another tag and other argument types",
            lines: [
                "ResolutionError: nothing is registered for ESession.",
                "  path: ESession",
                "  searched: app",
                #"  suggestion: 'app' registers ESession[tag: "x"](Int), with another tag and other runtime arguments: ask for tag "x" with arguments of exactly those types, in that order, or register ESession."#,
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(ESession.self, tag: "x") { (_, _: Int) in ESession() }
                _ = try app.resolve(ESession.self)
            }),
        MessageCase(
            name: "another tag without arguments, asked with arguments",
            lines: [
                "ResolutionError: nothing is registered for ESession(String).",
                "  path: ESession(String)",
                "  searched: app",
                #"  suggestion: 'app' registers ESession[tag: "x"], with another tag and other runtime arguments: ask for tag "x" without runtime arguments, or register ESession(String)."#,
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(ESession.self, tag: "x") { _ in ESession() }
                _ = try app.resolve(ESession.self, tag: nil, arguments: "token")
            }),
        MessageCase(
            name: "registered without arguments, asked with",
            lines: [
                "ResolutionError: nothing is registered for ESession(Int); ESession is registered only with other runtime argument types.",
                "  path: ESession(Int)",
                "  searched: app",
                "  suggestion: 'app' registers ESession without runtime arguments: resolve it without arguments.",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(ESession.self) { _ in ESession() }
                _ = try app.resolve(ESession.self, tag: nil, arguments: 7)
            }),
        MessageCase(
            name: "a root singleton cannot see a child's registration",
            lines: [
                "ResolutionError: nothing is registered for EDatabase.",
                "  path: ERepository -> EDatabase",
                "  searched: app",
                "  suggestion: 'feature' registers EDatabase, but a lookup starting at 'app' does not visit it: lookups never go down to children; register EDatabase in 'app' or an ancestor. (A singleton resolves its dependencies from the container that owns it, never from the child that asked; a graph or unique dependent would see the child's registrations.)",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(ERepository.self, lifetime: .singleton, needing: EDatabase.self) { ERepository() }
                let feature = app.makeChild(name: "feature")
                feature.register(EDatabase.self) { _ in EDatabase() }
                _ = try feature.resolve(ERepository.self)
            }),
        MessageCase(
            name: "an unlinked sibling registers it",
            lines: [
                "ResolutionError: nothing is registered for EAnalytics.",
                "  path: EAnalytics",
                "  searched: cart -> app",
                "  suggestion: 'metrics' registers EAnalytics, but a lookup starting at 'cart' does not visit it: link them with cart.collaborate(with: metrics), or move EAnalytics to a common ancestor.",
            ],
            resolve: {
                let app = Container(name: "app")
                let cart = app.makeChild(name: "cart")
                let metrics = app.makeChild(name: "metrics")
                metrics.register(EAnalytics.self) { _ in EAnalytics() }
                _ = try cart.resolve(EAnalytics.self)
            }),
        MessageCase(
            name: "an unlinked sibling registers the type under another tag",
            lines: [
                "ResolutionError: nothing is registered for EAnalytics.",
                "  path: EAnalytics",
                "  searched: cart -> app",
                #"  suggestion: 'metrics' registers EAnalytics[tag: "audit"], but a lookup starting at 'cart' does not visit it (and the tag or argument types differ too)."#,
            ],
            resolve: {
                let app = Container(name: "app")
                let cart = app.makeChild(name: "cart")
                let metrics = app.makeChild(name: "metrics")
                metrics.register(EAnalytics.self, tag: "audit") { _ in EAnalytics() }
                _ = try cart.resolve(EAnalytics.self)
            }),
        MessageCase(
            name: "another type with the same name",
            lines: [
                "ResolutionError: nothing is registered for Thing.",
                "  path: Thing",
                "  searched: app",
                "  suggestion: 'app' registers a different type that is also named Thing (from another module, or nested in another type): check which one is asked for.",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(EFirst.Thing.self) { _ in EFirst.Thing() }
                _ = try app.resolve(ESecond.Thing.self)
            }),
        MessageCase(
            name: "a similar type name",
            lines: [
                "ResolutionError: nothing is registered for EDatabase.",
                "  path: EDatabase",
                "  searched: app",
                "  suggestion: did you mean EDatabases? 'app' registers EDatabases.",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(EDatabases.self) { _ in EDatabases() }
                _ = try app.resolve(EDatabase.self)
            }),
        MessageCase(
            name: "a factory that asks for its own key",
            lines: [
                "ResolutionError: circular dependency: ESession is requested while its own factory is still running.",
                "  path: ESession -> ESession",
                "  suggestion: ESession's factory asks for ESession itself, which does not exist before that factory returns; to refer to the instance being built, set the property in an onResolved block on its registration.",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(ESession.self, lifetime: .singleton, needing: ESession.self) { ESession() }
                _ = try app.resolve(ESession.self)
            }),
        MessageCase(
            name: "constructor cycle",
            lines: [
                "ResolutionError: circular dependency: ERepository is requested while its own factory is still running.",
                "  path: ERepository -> EDatabase -> ERepository",
                "  suggestion: to break the cycle, let EDatabase get ERepository after construction: build it without ERepository, and set the property in an onResolved block on its registration, .onResolved { r, instance in instance.<property> = try r.resolve() } (see Docs/CircularDependencies.md).",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(ERepository.self, needing: EDatabase.self) { ERepository() }
                app.register(EDatabase.self, needing: ERepository.self) { EDatabase() }
                _ = try app.resolve(ERepository.self)
            }),
        MessageCase(
            name: "factory threw",
            lines: [
                "ResolutionError: the factory of EDatabase threw: disk full",
                "  path: ERepository -> EDatabase",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(ERepository.self, needing: EDatabase.self) { ERepository() }
                app.register(EDatabase.self) { _ in throw EDiskFull() }
                _ = try app.resolve(ERepository.self)
            }),
        MessageCase(
            name: "forwarded type does not conform",
            lines: [
                "ResolutionError: the registration answering EProtocol produced an instance that is not of type EProtocol.",
                "  path: EProtocol",
                "  suggestion: the EImplementation registration in 'app' answers EProtocol through implements(_:), but its factory returned an instance of EImplementation, which does not conform to EProtocol; make EImplementation conform, or remove that implements call",
            ],
            resolve: {
                let app = Container(name: "app")
                app.register(EImplementation.self) { _ in EImplementation() }.implements((any EProtocol).self)
                _ = try app.resolve((any EProtocol).self)
            }),
    ]

    @Test(arguments: cases)
    func messageReadsExactly(_ example: MessageCase) {
        #expect(example.message().split(separator: "\n").map(String.init) == example.lines)
    }
}

private final class EDatabases: Sendable {}
