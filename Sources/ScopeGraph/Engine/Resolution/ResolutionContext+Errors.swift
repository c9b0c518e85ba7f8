/// The errors a resolve throws, with the path from the top-level request down.
extension ResolutionContext {
    /// An error about `key` requested from the current frame: the path is the stack plus `key`.
    func error(_ kind: ResolutionError.Kind, _ key: Key, searched: [String] = [], suggestions: [String] = [])
        -> ResolutionError
    {
        ResolutionError(
            kind: kind, key: key.serviceKey, path: (pathKeys + [key]).map(\.serviceKey),
            searched: searched, suggestions: suggestions)
    }

    /// The constructor-cycle error for `key` requested from the current frame.
    func cycleError(_ key: Key) -> ResolutionError { Diagnosis.cycleError(key, path: pathKeys + [key]) }

    /// An error about the key of the innermost frame (its factory or block failed).
    func frameError(_ kind: ResolutionError.Kind, _ key: Key, suggestions: [String] = []) -> ResolutionError {
        ResolutionError(kind: kind, key: key.serviceKey, path: pathKeys.map(\.serviceKey), suggestions: suggestions)
    }

    func missingError(_ key: Key, from start: Container) -> ResolutionError {
        let diagnosis = Diagnosis(
            key: key, start: start, scope: ScopeActivity.current, topLevelStart: topLevelStart?.takeUnretainedValue())
        return error(diagnosis.kind, key, searched: diagnosis.searched, suggestions: diagnosis.suggestions)
    }

    func shutDownError(_ key: Key, container: String) -> ResolutionError {
        error(.containerShutDown, key, suggestions: [Container.shutDownRemedy(container)])
    }

    /// The error of a build whose instance was not published because the shutdown of its
    /// container (`container`) began meanwhile; call once its frame is popped.
    func publicationShutDownError(_ entry: AnyEntry, container: String) -> ResolutionError {
        ResolutionError(
            kind: .containerShutDown, key: entry.key.serviceKey, path: (pathKeys + [entry.key]).map(\.serviceKey),
            suggestions: [Container.shutDownRemedy(container)])
    }

    func ownerGoneError(_ entry: AnyEntry, _ request: Request) -> ResolutionError {
        error(
            .notRegistered, request.key,
            suggestions: [
                "the container '\(entry.ownerName)' that owns this \(entry.lifetime) registration has been deallocated; keep it alive while containers that collaborate with it resolve from it"
            ])
    }

    /// A forwarded key whose registration produced an instance that does not conform.
    func typeMismatch(_ entry: AnyEntry, produced value: Any, _ request: Request) -> ResolutionError {
        let forwarded = request.key.serviceKey
        let produced = String(describing: type(of: value))
        return error(
            .typeMismatch, request.key,
            suggestions: [
                "the \(entry.key.serviceKey.typeName) registration in '\(entry.ownerName)' answers \(forwarded) through implements(_:), but its factory returned an instance of \(produced), which does not conform to \(forwarded.typeName); make \(produced) conform, or remove that implements call"
            ])
    }
}
