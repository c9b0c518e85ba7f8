import Testing

@testable import ScopeGraph

extension Container {
    /// The registration of `T`'s untagged key here, typed, as the cached-read probe hands it to
    /// the fast path (`FastConstruction.construct`); records an issue when there is none.
    func plainEntry<T>(of type: T.Type, sourceLocation: SourceLocation = #_sourceLocation) throws -> Entry<T> {
        let erased = withState { $0.registrations[Key(T.self, tag: nil)]?.entry }
        return try #require(erased as? Entry<T>, "no plain registration of \(T.self)", sourceLocation: sourceLocation)
    }
}
