/// How long an instance lives and who shares it.
///
/// | lifetime | where the instance lives | factory resolves its dependencies from |
/// |---|---|---|
/// | `unique` | nowhere: new on every resolve | the container the request started from |
/// | `graph` | the top-level resolve (shared within one object graph) | the container the request started from |
/// | `singleton` | the container that owns the registration | the owning container |
/// | `weakSingleton` | the owning container, held weakly | the owning container |
/// | `eagerSingleton` | the owning container, built by `bootstrap()` | the owning container |
/// | `perContainer` | the container the request started from | the container the request started from |
public enum Lifetime: Sendable, Hashable, CustomStringConvertible {
    /// A new instance every resolve.
    case unique
    /// Shared within one top-level resolve (the object graph). The default.
    case graph
    /// Created on first resolve and kept by the container that owns the registration.
    case singleton
    /// Like `singleton`, but held weakly: recreated after the last strong reference goes.
    /// A value type cannot be held weakly and behaves as `unique`.
    case weakSingleton
    /// A singleton created by `Container.bootstrap()` (or by an earlier resolve).
    case eagerSingleton
    /// One instance per container that the resolve started from.
    case perContainer

    /// The lifetime's name as written in Swift: `singleton`, `perContainer`, …
    public var description: String {
        switch self {
        case .unique: "unique"
        case .graph: "graph"
        case .singleton: "singleton"
        case .weakSingleton: "weakSingleton"
        case .eagerSingleton: "eagerSingleton"
        case .perContainer: "perContainer"
        }
    }

    /// True for the lifetimes whose instance lives in the owning container.
    var isOwnerRooted: Bool {
        switch self {
        case .singleton, .weakSingleton, .eagerSingleton: true
        case .unique, .graph, .perContainer: false
        }
    }
}
