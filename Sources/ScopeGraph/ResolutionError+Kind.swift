extension ResolutionError.Kind: Equatable {
    /// True when both kinds are the same case, so a test can write `error.kind == .notRegistered`
    /// instead of a `switch` or an `if case`.
    ///
    /// ```swift
    /// let error = try #require(throws: ResolutionError.self) { try container.resolve(Cart.self) }
    /// #expect(error.kind == .notRegistered)
    /// ```
    ///
    /// `.factoryFailed` equals `.factoryFailed` whatever errors they carry (an `any Error` has no
    /// equality): compare `factoryError` to tell two factory failures apart.
    /// - Parameters:
    ///   - lhs: A kind.
    ///   - rhs: Another kind.
    /// - Returns: Whether they are the same case.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.caseNumber == rhs.caseNumber
    }

    /// The error a factory or `onResolved` block threw, for `.factoryFailed`; `nil` for every
    /// other kind.
    ///
    /// ```swift
    /// #expect(error.kind.factoryError is DiskFullError)
    /// ```
    public var factoryError: (any Error)? {
        if case .factoryFailed(let underlying) = self { return underlying }
        return nil
    }

    /// The position of the case in the declaration, payload ignored. Exhaustive on purpose: a
    /// new case must be given its own number.
    private var caseNumber: Int {
        switch self {
        case .notRegistered: 0
        case .circularDependency: 1
        case .argumentMismatch: 2
        case .typeMismatch: 3
        case .factoryFailed: 4
        case .requiresAsync: 5
        case .requiresMainActor: 6
        case .containerShutDown: 7
        }
    }
}
