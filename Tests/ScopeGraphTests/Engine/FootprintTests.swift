import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// The owner link a container's registrations share.
@Suite struct FootprintTests {
    @Test func registrationsOfOneContainerShareItsOwnerLinkAndKeepItsNameAfterIt() throws {
        var container: Container? = Container(name: "billing")
        let first = try #require(container).register(Int.self) { _ in 1 }
        let second = try #require(container).register(String.self, lifetime: .singleton) { _ in "a" }
        let argumented = try #require(container).register(Double.self) { (_, scale: Double) in scale * 2 }
        #expect(first.entry.owner === container)
        #expect(second.entry.owner === container)
        #expect(argumented.entry.owner === container)
        #expect(try container?.resolve(Double.self, tag: nil, arguments: 21.0) == 42.0)
        let firstEntry = first.entry

        container = nil
        #expect(firstEntry.owner == nil)
        #expect(second.entry.owner == nil)
        #expect(first.entry.ownerName == "billing")
        #expect(argumented.entry.ownerName == "billing")
    }

    @Test func aContainerThatRegistersNothingMakesNoOwnerLink() {
        let app = Container(name: "app")
        let request = app.makeChild(name: "request")
        #expect(request.lazyOwnerLink.load() == nil)
        app.register(Int.self) { _ in 1 }
        #expect(app.lazyOwnerLink.load() != nil)
        #expect(request.lazyOwnerLink.load() == nil)
    }
}
