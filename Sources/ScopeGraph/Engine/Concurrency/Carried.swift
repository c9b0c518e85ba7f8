/// A value carried across an isolation boundary the compiler cannot see through: the instances
/// ScopeGraph hands out, which it already shares between threads exactly as it does for every
/// cached instance (the contract does not require them to be `Sendable`).
@usableFromInline
struct Carried<Value>: @unchecked Sendable {
    // @unchecked: see above; the container hands the same instance to every resolver.
    @usableFromInline let value: Value
    init(_ value: Value) { self.value = value }
}
