import Testing

@testable import ScopeGraph

#if canImport(Glibc)
import Glibc
#endif

private protocol Clock {}
private final class SystemClock: Clock {}

/// What a registration costs in memory, and the owner link its registrations share.
@Suite struct FootprintTests {
    #if canImport(Glibc)
    /// A plain registration is one allocation of at most 120 bytes: glibc's fast bins take
    /// chunks up to 128 bytes, so registering and dropping many stays on its quickest path.
    @Test(arguments: [Lifetime.unique, .graph, .singleton, .perContainer])
    func aPlainRegistrationFitsInOneSmallAllocation(lifetime: Lifetime) {
        let container = Container(name: "app")
        let registration = container.register((any Clock).self, tag: "wall", lifetime: lifetime) { _ in
            SystemClock()
        }
        let bytes = usableSize(of: registration.entry)
        #expect(bytes > 0 && bytes <= 120)
    }

    /// glibc's `malloc_usable_size` (in `malloc.h`, which the `Glibc` module does not export),
    /// found with `dlsym`; 0 when missing.
    private func usableSize(of object: AnyObject) -> Int {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        guard let symbol = dlsym(nil, "malloc_usable_size") else { return 0 }
        let function = unsafeBitCast(symbol, to: UsableSize.self)
        return function(Unmanaged.passUnretained(object).toOpaque())
    }
    #endif

    @Test func registrationsOfOneContainerShareItsOwnerLinkAndKeepItsNameAfterIt() throws {
        var container: Container? = Container(name: "billing")
        let first = try #require(container).register(Int.self) { _ in 1 }
        let second = try #require(container).register(String.self, lifetime: .singleton) { _ in "a" }
        let argumented = try #require(container).register(Double.self) { (_, scale: Double) in scale * 2 }
        #expect(first.entry.owner === container)
        #expect(second.entry.owner === container)
        #expect(argumented.entry.owner === container)
        #expect(try container?.resolve(Double.self, tag: nil, arguments: 21.0) == 42.0)

        container = nil
        #expect(first.entry.owner == nil)
        #expect(second.entry.owner == nil)
        #expect(first.entry.ownerName == "billing")
        #expect(argumented.entry.ownerName == "billing")
    }

    @Test func aContainerThatRegistersNothingMakesNoOwnerLink() {
        let app = Container(name: "app")
        let request = app.makeChild(name: "request")
        #expect(request.ownerLinkBits.load(ordering: .relaxed) == 0)
        app.register(Int.self) { _ in 1 }
        #expect(app.ownerLinkBits.load(ordering: .relaxed) != 0)
        #expect(request.ownerLinkBits.load(ordering: .relaxed) == 0)
    }
}
