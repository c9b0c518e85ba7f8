/// Settings for `Container.validate(with:)`: sample runtime arguments for the registrations
/// that need them.
///
/// Without sample arguments, `validate()` cannot build a registration whose factory takes
/// runtime arguments, and reports it as skipped (a warning). Give it sample values and it is
/// dry-run like every other registration:
///
/// ```swift
/// app.register(Session.self) { (r, userID: Int, token: String) in
///     Session(userID: userID, token: token, api: try r.resolve())
/// }
///
/// var options = ValidationOptions()
/// options.provideArguments(for: Session.self, 42, "sample-token")
/// let report = app.validate(with: options)
/// ```
public struct ValidationOptions: Sendable {
    /// Sample arguments by the key they complete (type, tag and argument types).
    var samples: [Key: Arguments] = [:]

    /// Options with no sample arguments: `validate(with: ValidationOptions())` is `validate()`.
    public init() {}

    /// Supplies sample runtime arguments for the registrations of `type` and `tag` whose
    /// argument types are the static types of `arguments`, in order. Supplying arguments for
    /// the same key again replaces the earlier ones.
    ///
    /// The values are passed to the factory during the dry run exactly as
    /// `resolve(type, tag: tag, arguments: …)` would pass them.
    /// - Parameters:
    ///   - type: The registered type.
    ///   - tag: The registration's tag, or `nil`.
    ///   - arguments: One sample value per runtime argument, of the registered argument types.
    public mutating func provideArguments<T, each A: Sendable>(
        for type: T.Type, tag: ServiceTag? = nil, _ arguments: repeat each A
    ) {
        let key = Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))
        samples[key] = Arguments(repeat each arguments)
    }
}
