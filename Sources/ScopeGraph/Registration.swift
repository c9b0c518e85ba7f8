/// The handle `register` returns: adds forwarded types and `onResolved` blocks, and identifies
/// the registration to `Container.remove(_:)`.
///
/// ```swift
/// container.register(ConsoleLogger.self, lifetime: .singleton) { _ in ConsoleLogger() }
///     .implements(Logger.self)
///     .onResolved { r, logger in logger.sink = try r.resolve() }
/// ```
public final class Registration<T>: Sendable {
    /// The registration's entry.
    let entry: Entry<T>
    /// Where `implements` stores forwarded keys when it is not the entry's owner (an override
    /// scope's table); `nil` for the owner, which the entry already references weakly.
    let store: WeakStore?

    /// A handle on a registration stored in its owner container.
    init(entry: Entry<T>) {
        self.entry = entry
        self.store = nil
    }

    /// A handle on a registration stored in `store`, another store than its owner.
    init(entry: Entry<T>, store: any RegistrationStore) {
        self.entry = entry
        self.store = WeakStore(store)
    }

    /// The key this registration answers for (its own type, tag and argument types).
    public var key: ServiceKey { entry.key.serviceKey }

    /// The registration's lifetime.
    public var lifetime: Lifetime { entry.lifetime }

    /// Makes this registration also answer for `type` (type forwarding).
    ///
    /// The instance is the same one wherever the lifetime shares it: resolving `Logger` and
    /// `ConsoleLogger` from a singleton registration gives one object. When the instance does
    /// not conform to `type`, resolving `type` throws `ResolutionError` of kind `.typeMismatch`.
    /// The forwarded key has the registration's argument types.
    /// - Parameters:
    ///   - type: The additional type to answer for, usually a protocol.
    ///   - tag: The tag of the forwarded key, or `nil`.
    /// - Returns: This registration, for chaining.
    @discardableResult
    public func implements<U>(_ type: U.Type, tag: ServiceTag? = nil) -> Registration<T> {
        // Nothing to do once the registration is gone (removed, replaced, or its container
        // deallocated): a stale handle must not bring it back under another key.
        let key = Key(U.self, tag: tag, arguments: entry.key.arguments)
        if let store {
            // An override scope's table (see `OverrideRegistrar`).
            entry.addForward(key)
            store.value?.store(entry, under: key)
        } else {
            entry.owner?.storeForward(entry, under: key)
        }
        return self
    }

    /// Adds a block that runs once for every new instance, after the outermost factory of the
    /// top-level resolve has returned and before that resolve returns (property injection).
    ///
    /// Blocks run in the order the instances' factories finished (dependencies first); several
    /// blocks on one registration run in the order added. Every instance built by the resolve
    /// is visible to a block, which is how cycles are broken:
    ///
    /// ```swift
    /// container.register(Parent.self, lifetime: .singleton) { r in Parent(child: try r.resolve()) }
    /// container.register(Child.self, lifetime: .singleton) { _ in Child() }
    ///     .onResolved { r, child in child.parent = try r.resolve() }
    /// ```
    ///
    /// An instance taken from a cache does not run its blocks again. A cached instance with
    /// blocks is published to other threads when the top-level resolve ends, with everything
    /// built from it. If a block throws, the whole resolve fails, and those instances are not
    /// cached; instances that were complete (no blocks, built only from published instances)
    /// were published when their factories returned and stay cached.
    /// - Parameter body: Receives a resolver joined to the resolve in progress and the instance.
    /// - Returns: This registration, for chaining.
    @discardableResult
    public func onResolved(_ body: @escaping @Sendable (Resolver, T) throws -> Void) -> Registration<T> {
        entry.addBlock(body)
        return self
    }
}

/// Where registrations are stored: a container, or an override scope's table.
package protocol RegistrationStore: AnyObject, Sendable {
    func store(_ entry: AnyEntry, under key: Key)
}

/// A weak reference to a store, so a kept `Registration` does not keep its container alive.
struct WeakStore: @unchecked Sendable {
    // @unchecked: written once, in init; weak loads are thread-safe in the Swift runtime.
    weak var value: (any RegistrationStore)?
    init(_ value: any RegistrationStore) { self.value = value }
}
