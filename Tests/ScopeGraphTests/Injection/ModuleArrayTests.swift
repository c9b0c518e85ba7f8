import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Registers `String` under the tag `name`, in order.
private struct TagModule: ContainerModule {
    let name: String
    func register(in container: Container) {
        container.register(String.self, tag: "last") { _ in name }
        container.register(String.self, tag: ServiceTag(name)) { _ in name }
    }
}

/// `Container(name:modules:)` and `makeChild(name:modules:)` with an array of modules: installed
/// in order, into that container only.
@Suite struct ModuleArrayTests {
    @Test func aRootCreatedWithAnArrayOfModulesInstallsThemInOrder() throws {
        let modules: [any ContainerModule] = ["core", "network"].map { TagModule(name: $0) }

        let app = Container(name: "app", modules: modules)
        let unnamed = Container(modules: [TagModule(name: "only")])
        let empty = Container(name: "empty", modules: [])

        #expect(app.name == "app" && app.parent == nil)
        #expect(try app.resolve(String.self, tag: "last") == "network")
        #expect(try app.resolve(String.self, tag: "core") == "core")
        #expect(unnamed.name == "root")
        #expect(try unnamed.resolve(String.self, tag: "only") == "only")
        #expect(try empty.resolveIfRegistered(String.self, tag: "last") == nil)
    }

    @Test func aChildCreatedWithAnArrayOfModulesGetsThemOnly() throws {
        let app = Container(name: "app", modules: [TagModule(name: "core")])

        let feature = app.makeChild(name: "feature", modules: [TagModule(name: "cart"), TagModule(name: "pay")])

        #expect(feature.parent === app)
        #expect(try feature.resolve(String.self, tag: "last") == "pay")
        #expect(try app.resolve(String.self, tag: "last") == "core")
    }
}
