extension Container {
    /// Registers `type` by an initializer whose parameters are all resolved from the container
    /// (auto-wiring), for any number of parameters.
    ///
    /// ```swift
    /// final class CheckoutService: Checkout {
    ///     init(cart: Cart, payments: PaymentService, logger: Logger) { … }
    /// }
    /// container.autoregister(Checkout.self, initializer: CheckoutService.init)
    /// // the same as
    /// container.register(Checkout.self) { r in
    ///     CheckoutService(cart: try r.resolve(), payments: try r.resolve(), logger: try r.resolve())
    /// }
    /// ```
    ///
    /// Each parameter is resolved by its type, untagged, like `try r.resolve()`; an optional
    /// parameter resolves its wrapped type and fails when that is missing. When a type has
    /// several initializers, name the one to use: `CheckoutService.init(cart:payments:logger:)`.
    /// Register with a factory for tagged dependencies or runtime arguments.
    ///
    /// When a parameter cannot be resolved, the resolve throws the `ResolutionError` about the
    /// deepest cause, as any resolve does; when the parameter's own key is the one that failed,
    /// the error also names the parameter's position, for example
    /// `suggestion: Checkout is auto-wired: parameter 2 of 3 (PaymentService) of its initializer could not be resolved.`
    /// - Parameters:
    ///   - type: The type to answer for; usually a protocol the initializer's result conforms to.
    ///   - tag: A tag that tells this registration apart from others of the same type.
    ///   - lifetime: How long instances live; `.graph` by default.
    ///   - initializer: The initializer (or any function) that builds the instance.
    /// - Returns: The registration, for `implements`, `onResolved` and `remove`.
    @discardableResult
    public func autoregister<T, each Parameter>(
        _ type: T.Type = T.self, tag: ServiceTag? = nil, lifetime: Lifetime = .graph,
        initializer: @escaping @Sendable (repeat each Parameter) throws -> T
    ) -> Registration<T> {
        register(type, tag: tag, lifetime: lifetime) { resolver in
            let count = Key.argumentTypes(repeat (each Parameter).self).count
            var wiring = ParameterWiring(resolver: resolver, service: T.self, count: count)
            return try initializer(repeat try wiring.next((each Parameter).self))
        }
    }
}

/// Resolves an auto-wired initializer's parameters one by one, counting positions so that an
/// error can say which parameter failed.
private struct ParameterWiring {
    let resolver: Resolver
    let service: Any.Type
    let count: Int
    private var position = 0

    init(resolver: Resolver, service: Any.Type, count: Int) {
        self.resolver = resolver
        self.service = service
        self.count = count
    }

    mutating func next<P>(_ type: P.Type) throws -> P {
        position += 1
        do {
            return try resolver.resolve(P.self, tag: nil)
        } catch let error as ResolutionError {
            throw annotated(error, parameter: ServiceKey(typeName: String(describing: P.self)))
        }
    }

    /// Adds the parameter's position to an error about the parameter's own key; an error about
    /// a deeper key is passed on unchanged (its own registration is what to fix).
    private func annotated(_ error: ResolutionError, parameter: ServiceKey) -> ResolutionError {
        guard error.key == parameter, error.path.last == parameter else { return error }
        let note =
            "\(String(describing: service)) is auto-wired: parameter \(position) of \(count) (\(parameter)) "
            + "of its initializer could not be resolved."
        return ResolutionError(
            kind: error.kind, key: error.key, path: error.path, searched: error.searched,
            suggestions: [note] + error.suggestions)
    }
}
