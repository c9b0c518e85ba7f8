import ScopeGraph

/// The services of the suites that probe features in combination (`LifetimeTests.Combined`,
/// `ForwardingTests.WithLifetimes`, …), declared once. A suite gets them under their short names
/// by conforming to `ProbeFixtures`.
enum ProbeTypes {
    protocol Plugin: AnyObject, Sendable { var name: String { get } }
    final class NamedPlugin: Plugin, Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }
    protocol Service: AnyObject, Sendable {}
    final class Impl: Service, Sendable {}
    final class NotService: Sendable {}
    final class Dep: Sendable {}
    final class Top: Sendable {}
    final class Mid: Sendable {}
    final class Leaf: Sendable {}
    final class Box: @unchecked Sendable {
        // @unchecked: set by onResolved blocks before the resolve that built it returns.
        var dep: Dep?
        var mid: Mid?
    }
    final class Holder: @unchecked Sendable {
        // @unchecked: set by onResolved blocks before the resolve that built it returns.
        var dep: Dep?
        var optionalDep: Dep?
        var service: (any Service)?
        var impl: Impl?
        var me: Holder?
        var top: Top?
    }
    final class Cyc: @unchecked Sendable {
        let holder: Holder
        init(holder: Holder) { self.holder = holder }
    }
    struct Value: Sendable { let id: Int }
    struct Pair: Sendable {
        let a: Value
        let b: Value
    }
}

/// Gives a suite the types of `ProbeTypes` under their short names.
protocol ProbeFixtures {}

extension ProbeFixtures {
    typealias Plugin = ProbeTypes.Plugin
    typealias NamedPlugin = ProbeTypes.NamedPlugin
    typealias Service = ProbeTypes.Service
    typealias Impl = ProbeTypes.Impl
    typealias NotService = ProbeTypes.NotService
    typealias Dep = ProbeTypes.Dep
    typealias Top = ProbeTypes.Top
    typealias Mid = ProbeTypes.Mid
    typealias Leaf = ProbeTypes.Leaf
    typealias Box = ProbeTypes.Box
    typealias Holder = ProbeTypes.Holder
    typealias Cyc = ProbeTypes.Cyc
    typealias Value = ProbeTypes.Value
    typealias Pair = ProbeTypes.Pair
}

extension ProbeFixtures {
    /// Two trees whose children link to each other both ways: `feature` (child of `root`) and
    /// `partner` (child of `vendor`). A walk from `feature` goes feature, partner, vendor, root;
    /// one from `partner` goes partner, feature, root, vendor.
    static func twoTreesLinkedBothWays() -> (root: Container, feature: Container, vendor: Container, partner: Container)
    {
        let root = Container(name: "root")
        let feature = root.makeChild(name: "feature")
        let vendor = Container(name: "vendor")
        let partner = vendor.makeChild(name: "partner")
        feature.collaborate(with: partner)
        partner.collaborate(with: feature)
        return (root, feature, vendor, partner)
    }
}
