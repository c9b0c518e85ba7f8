package import ScopeGraph

/// The services of the suites that probe features in combination (`LifetimeTests.Combined`,
/// `ForwardingTests.WithLifetimes`, …), declared once. A suite gets them under their short names
/// by conforming to `ProbeFixtures`.
package enum ProbeTypes {
    package protocol Plugin: AnyObject, Sendable { var name: String { get } }
    package final class NamedPlugin: Plugin, Sendable {
        package let name: String
        package init(_ name: String) { self.name = name }
    }
    package protocol Service: AnyObject, Sendable {}
    package final class Impl: Service, Sendable { package init() {} }
    package final class NotService: Sendable { package init() {} }
    package final class Dep: Sendable { package init() {} }
    package final class Top: Sendable { package init() {} }
    package final class Mid: Sendable { package init() {} }
    package final class Leaf: Sendable { package init() {} }
    package final class Box: @unchecked Sendable {
        // @unchecked: set by onResolved blocks before the resolve that built it returns.
        package var dep: Dep?
        package var mid: Mid?

        package init() {}
    }
    package final class Holder: @unchecked Sendable {
        // @unchecked: set by onResolved blocks before the resolve that built it returns.
        package var dep: Dep?
        package var optionalDep: Dep?
        package var service: (any Service)?
        package var impl: Impl?
        package var me: Holder?
        package var top: Top?

        package init() {}
    }
    package final class Cyc: @unchecked Sendable {
        package let holder: Holder
        package init(holder: Holder) { self.holder = holder }
    }
    package struct Value: Sendable {
        package let id: Int
        package init(id: Int) { self.id = id }
    }
    package struct Pair: Sendable {
        package let a: Value
        package let b: Value
        package init(a: Value, b: Value) { (self.a, self.b) = (a, b) }
    }
}

/// Gives a suite the types of `ProbeTypes` under their short names.
package protocol ProbeFixtures {}

extension ProbeFixtures {
    package typealias Plugin = ProbeTypes.Plugin
    package typealias NamedPlugin = ProbeTypes.NamedPlugin
    package typealias Service = ProbeTypes.Service
    package typealias Impl = ProbeTypes.Impl
    package typealias NotService = ProbeTypes.NotService
    package typealias Dep = ProbeTypes.Dep
    package typealias Top = ProbeTypes.Top
    package typealias Mid = ProbeTypes.Mid
    package typealias Leaf = ProbeTypes.Leaf
    package typealias Box = ProbeTypes.Box
    package typealias Holder = ProbeTypes.Holder
    package typealias Cyc = ProbeTypes.Cyc
    package typealias Value = ProbeTypes.Value
    package typealias Pair = ProbeTypes.Pair
}

extension ProbeFixtures {
    /// Two trees whose children link to each other both ways: `feature` (child of `root`) and
    /// `partner` (child of `vendor`). A walk from `feature` goes feature, partner, vendor, root;
    /// one from `partner` goes partner, feature, root, vendor.
    package static func twoTreesLinkedBothWays() -> (
        root: Container, feature: Container, vendor: Container, partner: Container
    ) {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let vendor = Container(name: "vendor")
        let partner = vendor.makeChild(name: "partner")
        feature.collaborateBothWays(with: partner)
        return (root, feature, vendor, partner)
    }
}
