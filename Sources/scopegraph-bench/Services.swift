// The services every contender builds: the same classes, so that ScopeGraph, the naive
// locator and direct construction pay for the same allocations.

/// Scenario A, D, H, I: a transient service with no dependencies, resolved by protocol type.
protocol Transient: AnyObject, Sendable {}
final class TransientService: Transient {}

/// Scenario B: a transient with three transient dependencies.
protocol FirstPart: AnyObject, Sendable {}
protocol SecondPart: AnyObject, Sendable {}
protocol ThirdPart: AnyObject, Sendable {}
protocol Assembly: AnyObject, Sendable {}
final class FirstPartService: FirstPart {}
final class SecondPartService: SecondPart {}
final class ThirdPartService: ThirdPart {}
final class AssemblyService: Assembly {
    let first: any FirstPart
    let second: any SecondPart
    let third: any ThirdPart
    init(first: any FirstPart, second: any SecondPart, third: any ThirdPart) {
        self.first = first
        self.second = second
        self.third = third
    }
}

/// Scenarios C, G, K: the cached singleton (application settings).
protocol Settings: AnyObject, Sendable {}
final class AppSettings: Settings {}

/// Scenario E: ten objects; `GraphShared` is one `.graph` node used by four others.
final class GraphShared: Sendable {}
final class GraphLeafB: Sendable {}
final class GraphLeafD: Sendable {}
final class GraphLeafE: Sendable {}
final class GraphLeafA: Sendable {
    let shared: GraphShared
    init(shared: GraphShared) { self.shared = shared }
}
final class GraphLeafC: Sendable {
    let leaf: GraphLeafD
    init(leaf: GraphLeafD) { self.leaf = leaf }
}
final class GraphLeft: Sendable {
    let leaf: GraphLeafA
    let shared: GraphShared
    init(leaf: GraphLeafA, shared: GraphShared) {
        self.leaf = leaf
        self.shared = shared
    }
}
final class GraphMiddle: Sendable {
    let leaf: GraphLeafB
    let shared: GraphShared
    init(leaf: GraphLeafB, shared: GraphShared) {
        self.leaf = leaf
        self.shared = shared
    }
}
final class GraphRight: Sendable {
    let leaf: GraphLeafC
    let shared: GraphShared
    init(leaf: GraphLeafC, shared: GraphShared) {
        self.leaf = leaf
        self.shared = shared
    }
}
final class GraphRoot: Sendable {
    let left: GraphLeft
    let middle: GraphMiddle
    let right: GraphRight
    let extra: GraphLeafE
    init(left: GraphLeft, middle: GraphMiddle, right: GraphRight, extra: GraphLeafE) {
        self.left = left
        self.middle = middle
        self.right = right
        self.extra = extra
    }

    /// True when the four users of the shared node got the same instance.
    var sharesOneNode: Bool {
        left.shared === middle.shared && middle.shared === right.shared && right.shared === left.leaf.shared
    }
}

/// Scenario F: one protocol registered under 1,000 tags; scenario H's unrelated registrations.
protocol Numbered: AnyObject, Sendable {}
final class NumberedService: Numbered {}

/// Scenarios J and M: singletons whose factories are slow.
protocol SlowStart: AnyObject, Sendable {}
final class SlowStartService: SlowStart {}

/// Scenario K: a request handler cached per request container, with a root singleton and a
/// transient helper.
protocol RequestHelping: AnyObject, Sendable {}
protocol RequestHandling: AnyObject, Sendable {}
final class RequestHelper: RequestHelping {}
final class RequestHandler: RequestHandling {
    let settings: any Settings
    let helper: any RequestHelping
    init(settings: any Settings, helper: any RequestHelping) {
        self.settings = settings
        self.helper = helper
    }
}
