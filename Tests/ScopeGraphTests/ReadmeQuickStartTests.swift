import ScopeGraph
import Testing

// The quick start of README.md, line for line, so that `swift test` compiles and runs it.
// When you change one, change the other. The types are nested here only so that they cannot
// clash with other tests' types; the README declares them at file scope.

@Suite struct ReadmeQuickStartTests {
    protocol Greeter: Sendable { func greet(_ name: String) -> String }
    struct EnglishGreeter: Greeter { func greet(_ name: String) -> String { "Hello, \(name)!" } }
    struct Welcome { let greeter: any Greeter }

    @Test func quickStartResolvesFromAChildThroughItsParent() throws {
        let app = Container(name: "app")
        app.register(Greeter.self, lifetime: .singleton) { _ in EnglishGreeter() }
        app.register(Welcome.self) { r in Welcome(greeter: try r.resolve()) }

        let feature = app.makeChild(name: "feature")  // sees everything "app" registers
        let welcome = try feature.resolve(Welcome.self)
        #expect(welcome.greeter.greet("ScopeGraph") == "Hello, ScopeGraph!")
    }
}
