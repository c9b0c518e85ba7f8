/// `Provider<T>` and `Lazy<T>` requested with nothing registered for them: made from the
/// registration of `T`.
extension ResolutionContext {
    /// A `Provider` or `Lazy` of `key`'s wrapped type, when `T` is one and its wrapped type is
    /// registered; throws `missing` with the wrapped key when it is not; `nil` when `T` is
    /// neither.
    func deferredValue<T>(
        _ key: Key, as type: T.Type, from start: Container, scope: ResolutionScope?, ifRegistered: Bool
    ) throws -> T? {
        guard let deferred = T.self as? any DeferredResolvable.Type, key.arguments.isEmpty else { return nil }
        let wrappedKey = Key(deferred.resolvedType, tag: key.tag)
        // Only that something answers is checked now: building is left to the value's reads.
        guard try lookup(wrappedKey, from: start, scope: scope) != nil else {
            throw missing(wrappedKey, from: start, ifRegistered: ifRegistered)
        }
        // The value references this context weakly: the thread does not keep it for reuse.
        isWeaklyReferenced = true
        let value = deferred.make(DeferredResolution(container: start, context: self, key: wrappedKey))
        assert(value is T, "ScopeGraph: a DeferredResolvable type must make itself")
        // Checked: `make` returns `Self`, the `DeferredResolvable` type `T` was cast to.
        return (value as! T)
    }
}
