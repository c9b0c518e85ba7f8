import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The quick start of README.md and of the ScopeGraph documentation's landing page
// (Sources/ScopeGraph/ScopeGraph.docc/ScopeGraph.md), line for line, so that `swift test`
// compiles and runs it; Scripts/docs/check-articles.py fails when they differ. The types are
// nested here only so that they cannot clash with other tests' types; the README declares them
// at file scope (the test's own line ends in `// hidden in the docs`).

@Suite struct ReadmeQuickStartTests {
    protocol Greeter: Sendable { func greet(_ name: String) -> String }
    struct EnglishGreeter: Greeter { func greet(_ name: String) -> String { "Hello, \(name)!" } }
    struct Welcome { let greeter: any Greeter }

    @Test func quickStartResolvesFromAChildThroughItsParent() throws {  // hidden in the docs
        let app = Container(name: "app")
        app.register(Greeter.self, lifetime: .singleton) { _ in EnglishGreeter() }
        app.register(Welcome.self) { r in Welcome(greeter: try r.resolve()) }

        let feature = app.makeChild(name: "feature")  // sees everything "app" registers
        let welcome = try feature.resolve(Welcome.self)
        print(welcome.greeter.greet("ScopeGraph"))  // Hello, ScopeGraph!
        #expect(welcome.greeter.greet("ScopeGraph") == "Hello, ScopeGraph!")
    }
}
