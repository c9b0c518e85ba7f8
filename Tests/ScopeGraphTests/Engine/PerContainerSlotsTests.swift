import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// A container's table of `perContainer` slots against a reference model, below and above the
/// size at which it is indexed, and through containers that hold many `perContainer`
/// instances.
@Suite struct PerContainerSlotsTests {
    final class Handler: Sendable {}

    @Test(arguments: [1, 3, 17, 40])
    func randomOperationsAgreeWithAModel(serialSpace: Int) {
        var generator = Reliability.SplitMix64(seed: UInt64(serialSpace))
        let owner = Container(name: "owner")
        let entries = (0..<serialSpace).map { index in
            owner.register(Handler.self, tag: ServiceTag("h\(index)"), lifetime: .perContainer) { _ in Handler() }.entry
        }
        var table = PerContainerSlots()
        var model: [(serial: UInt64, slot: AnySlot)] = []
        for step in 0..<4_000 {
            let entry = entries[Int(generator.next() % UInt64(serialSpace))]
            let serial = entry.serial
            switch generator.next() % 10 {
            case 0..<5:
                guard table[serial] == nil else { break }
                let slot = Slot<Int>(
                    weak: false, retirement: Retirement(), logOwner: owner, boxType: StrongBox<Int>.self)
                table.add(slot, for: entry)
                model.append((serial, slot))
            case 5..<8:
                let removed = table.remove(serial: serial)
                let at = model.firstIndex { $0.serial == serial }
                #expect(removed === at.map { model[$0].slot })
                if let at { model.remove(at: at) }
            case 8 where generator.next() % 8 == 0:
                let removed = table.removeAll()
                #expect(removed.map(ObjectIdentifier.init) == model.map { ObjectIdentifier($0.slot) })
                model.removeAll()
            default:
                break
            }
            #expect(table[serial] === model.first { $0.serial == serial }?.slot, "step \(step)")
            #expect(table.count == model.count, "step \(step)")
            if table.count != model.count { return }
        }
        #expect(table.values.map(ObjectIdentifier.init) == model.map { ObjectIdentifier($0.slot) })
    }

    /// A request scope that held a `perContainer` instance is forgotten by the registration
    /// when it is freed: the registration's list of holders stays as long as the live ones
    /// (it used to keep links to freed scopes until it pruned them, allocating as it did).
    @Test func aFreedRequestScopeLeavesNoLinkInTheRegistrationsHolders() throws {
        let app = Container(name: "app")
        let registration = app.register(Handler.self, lifetime: .perContainer) { _ in Handler() }
        let kept = app.makeChild(name: "kept")
        _ = try kept.resolve(Handler.self)
        for _ in 0..<100 {
            let request = app.makeChild(name: "request")
            _ = try request.resolve(Handler.self)
        }
        // The live holders: the kept scope, and the app, whose memoized lookup made its own
        // slot (for requests that start there).
        #expect(Set(registration.entry.perContainerHolders.map(\.name)) == ["kept", "app"])
        #expect(registration.entry.perContainerHolderLinks == 2)
    }

    /// Forty `perContainer` registrations resolved in one child (so its table is indexed),
    /// one of them removed: each resolve gives the child's one instance, the removed
    /// registration's instance is released and the others are kept, and another child gets
    /// instances of its own.
    @Test func aChildHoldingManyPerContainerInstancesKeepsEachOnce() throws {
        let app = Container(name: "app")
        let tags = (0..<40).map { ServiceTag("handler-\($0)") }
        let registrations = tags.map { tag in
            app.register(Handler.self, tag: tag, lifetime: .perContainer) { _ in Handler() }
        }
        let request = app.makeChild(name: "request")
        var instances: [Handler]? = try tags.map { try request.resolve(Handler.self, tag: $0) }
        for (tag, instance) in zip(tags, instances!) {
            #expect(try request.resolve(Handler.self, tag: tag) === instance)
        }
        let probes = instances!.map { WeakProbe($0) }

        app.remove(registrations[7])
        instances = nil

        #expect(probes[7].isFreed)
        let second = app.makeChild(name: "request")
        for (index, tag) in tags.enumerated() where index != 7 {
            #expect(!probes[index].isFreed, "the child still holds handler-\(index)")
            #expect(try request.resolve(Handler.self, tag: tag) === probes[index].object)
            #expect(try second.resolve(Handler.self, tag: tag) !== probes[index].object)
        }
    }
}
