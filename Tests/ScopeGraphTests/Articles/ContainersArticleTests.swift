import ScopeGraph
import ScopeGraphTestSupport
import Testing

// The code of the Containers and Lookup article (Sources/ScopeGraph/ScopeGraph.docc/Containers.md),
// as the article shows it; Scripts/docs/check-articles.py fails when the two differ.

@Suite struct ContainersArticleTests {
    @Test func theTreeAndCollaborationLinks() throws {
        let app = Container(name: "app")  // a root
        let catalog = app.makeChild(name: "catalog")  // a child; catalog.parent === app
        let cart = app.makeChild(name: "cart")
        let shell = app.makeChild(name: "shell")
        #expect(catalog.parent === app)
        #expect(app.children.map(\.name) == ["catalog", "cart", "shell"])

        cart.collaborate(with: catalog)  // lookups from cart visit catalog
        catalog.collaborate(with: cart)  // and now the other way round too
        shell.collaborate(with: catalog, cart)  // several at once, visited in this order
        #expect(shell.collaborators.map(\.name) == ["catalog", "cart"])
        #expect(cart.collaborators.map(\.name) == ["catalog"])
    }
}
