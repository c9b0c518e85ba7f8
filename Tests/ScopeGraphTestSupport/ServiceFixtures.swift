/// The plain services of the engine's suites (the typed fast path, uncontended builds, clean
/// contexts, one resolve per thread, `resolveAsync`'s shortcut), declared once: leaves that hold
/// nothing, and the few services built from them. A suite gets them under their short names by
/// conforming to `ServiceFixtures`; a type the suite declares itself takes precedence.
package enum ServiceTypes {
    package final class Shared: Sendable { package init() {} }
    /// The two ends of a cycle: through their factories (`register(_:needing:)`, a
    /// constructor cycle), or through their properties, set by `onResolved` blocks (a property
    /// cycle: the two keep each other alive until the test breaks the cycle).
    package final class Left: @unchecked Sendable {
        // @unchecked: set by a block before the resolve that built it returns.
        package var right: Right?
        package init(right: Right? = nil) { self.right = right }
    }

    package final class Right: @unchecked Sendable {
        // @unchecked: set by a block before the resolve that built it returns.
        package var left: Left?
        package init(left: Left? = nil) { self.left = left }
    }

    /// A service whose builds the tests hold open; it knows which factory run built it.
    package final class Slow: Sendable {
        package let run: Int
        package init(run: Int = 0) { self.run = run }
    }

    /// Two `Shared`: the same instance twice when one resolve shares it (`graph`).
    package final class Pair: Sendable {
        package let first: Shared
        package let second: Shared
        package init(first: Shared, second: Shared) {
            self.first = first
            self.second = second
        }
    }

    package final class Holder: Sendable {
        package let shared: Shared
        package init(shared: Shared) { self.shared = shared }
    }

    package final class Helper: Sendable { package init() {} }
    /// Configuration, labelled with where it came from (by default "config").
    package final class Config: Sendable {
        package let label: String
        package init(_ label: String = "config") { self.label = label }
    }

    /// A service built from a `Shared` and a `Helper` (a request's handler).
    package final class Handler: Sendable {
        package let shared: Shared
        package let helper: Helper
        package init(shared: Shared, helper: Helper) {
            self.shared = shared
            self.helper = helper
        }
    }

    /// A chain: `Store` ← `Middle` ← `Config`.
    package final class Middle: Sendable {
        package let config: Config
        package init(config: Config) { self.config = config }
    }

    package final class Store: Sendable {
        package let middle: Middle
        package init(middle: Middle) { self.middle = middle }
    }
}

/// Gives a suite the types of `ServiceTypes` under their short names.
package protocol ServiceFixtures {}

extension ServiceFixtures {
    package typealias Shared = ServiceTypes.Shared
    package typealias Left = ServiceTypes.Left
    package typealias Right = ServiceTypes.Right
    package typealias Slow = ServiceTypes.Slow
    package typealias Pair = ServiceTypes.Pair
    package typealias Holder = ServiceTypes.Holder
    package typealias Helper = ServiceTypes.Helper
    package typealias Config = ServiceTypes.Config
    package typealias Handler = ServiceTypes.Handler
    package typealias Middle = ServiceTypes.Middle
    package typealias Store = ServiceTypes.Store
}
