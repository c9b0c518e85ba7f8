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
    /// A registration's entry is one allocation of 128 bytes (glibc's usable size 136); a
    /// `unique` one has none until something needs it (see `PlainRegistration`).
    @Test(arguments: [Lifetime.unique, .graph, .singleton, .perContainer])
    func aRegistrationsEntryIsOneSmallAllocation(lifetime: Lifetime) throws {
        let container = Container(name: "app")
        let registration = container.register((any Clock).self, tag: "wall", lifetime: lifetime) { _ in
            SystemClock()
        }
        #expect((registration.entry == nil) == (lifetime == .unique))
        let entry = try #require(registration.currentEntry)
        let bytes = usableSize(of: entry)
        #expect(bytes > 0 && bytes <= 136)
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
        #expect(first.currentEntry?.owner === container)
        #expect(second.currentEntry?.owner === container)
        #expect(argumented.currentEntry?.owner === container)
        #expect(try container?.resolve(Double.self, tag: nil, arguments: 21.0) == 42.0)
        // Kept: once its container is gone, a record's handle can no longer make its entry.
        let firstEntry = try #require(first.currentEntry)

        container = nil
        #expect(firstEntry.owner == nil)
        #expect(second.entry?.owner == nil)
        #expect(first.currentEntry?.ownerName == "billing")
        #expect(argumented.currentEntry?.ownerName == "billing")
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
