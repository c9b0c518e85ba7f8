/// A top-level `unique` construction on the fast path that has no resolve yet
/// (`FastConstruction`): the thread keeps what a resolve made for it later needs, its entry
/// and where the request started, while the factory runs (`ThreadState.pendingEntry`,
/// `pendingStart`), and then the resolve a request inside the factory made
/// (`pendingContext`), until the construction ends.
extension ThreadState {
    /// The resolve in progress on this thread: the bound context, else the resolve that a
    /// pending top-level construction turns into now (a request inside its factory joins it).
    func resolveInProgress() -> ResolutionContext? {
        if let context { return context }
        guard pendingEntry != nil else { return nil }
        return materializePendingTop()
    }

    /// Records a top-level construction of `entry` begun without a resolve; `entry` and
    /// `start` must outlive it (the construction holds its entry, the caller of `resolve` the
    /// container).
    func beginPendingTop(_ entry: AnyEntry, from start: Container) {
        assert(pendingEntry == nil && context == nil, "ScopeGraph: a pending construction inside a resolve")
        pendingEntry = .passUnretained(entry)
        pendingStart = .passUnretained(start)
        #if DEBUG
        pendingIdentities = (entry.liveness.current, start.liveness.current)
        #endif
    }

    /// Ends the top-level construction of `entry`; returns the resolve a request inside its
    /// factory made for it, if one did (still bound to this thread, for the caller to end).
    func endPendingTop(_ entry: AnyEntry) -> ResolutionContext? {
        assert(
            pendingEntry?.toOpaque() == Unmanaged.passUnretained(entry).toOpaque(),
            "ScopeGraph: a construction ended another's pending state")
        pendingEntry = nil
        pendingStart = nil
        return pendingContext.take()
    }

    /// Makes the resolve of the pending top-level construction and binds it to this thread,
    /// with the construction as its first frame (so cycles through it are found and errors
    /// name it). `pendingContext` holds it until the construction ends.
    func materializePendingTop() -> ResolutionContext {
        // Invariant: called only with a construction pending and no resolve bound.
        guard let entry = pendingEntry, let start = pendingStart, pendingContext == nil, context == nil else {
            preconditionFailure("ScopeGraph: no pending construction to make a resolve for")
        }
        #if DEBUG
        // Read without a retain: the objects may be gone.
        assert(
            entry._withUnsafeGuaranteedRef { $0.liveness.current } == pendingIdentities.entry
                && start._withUnsafeGuaranteedRef { $0.liveness.current } == pendingIdentities.start,
            "ScopeGraph: a pending construction outlived its registration or the container it started from")
        #endif
        let made = ResolutionContext.takeSpare(of: self) ?? ResolutionContext()
        pendingContext = made
        context = made
        entry._withUnsafeGuaranteedRef { entry in
            start._withUnsafeGuaranteedRef { made.beginAsTopLevel(of: entry, from: $0) }
        }
        return made
    }
}

extension ResolutionContext {
    /// Starts this fresh context as the resolve of a pending top-level construction of
    /// `entry`: its frame first, as `enterConstruction` would have pushed it (the stack is
    /// empty, so it cannot be a cycle).
    func beginAsTopLevel(of entry: AnyEntry, from start: Container) {
        assert(stack.isEmpty && blockLineage.isEmpty, "ScopeGraph: a pending construction's resolve was not fresh")
        noteTopLevelStart(start)
        stack.append(Frame(requestedKey: nil, entry: entry, identity: entry.serial))
    }
}
