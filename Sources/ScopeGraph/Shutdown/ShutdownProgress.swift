/// Where a container's one shutdown stands, which every `shutdown()` call waits for.
enum ShutdownProgress {
    /// `shutdown()` has not been called.
    case notStarted
    /// The first call began it; the later callers wait here for its outcome.
    case running(waiters: [CheckedContinuation<ShutdownError?, Never>])
    /// Every hook has run: the one outcome, for every caller, including later ones.
    case finished(ShutdownError?)
}

extension Container {
    /// Starts this container's shutdown if no call did yet; then waits for its outcome.
    /// `started` tells whether this call began it.
    ///
    /// The shutdown runs in a task of its own (`startImmediateTask`), so that a caller's
    /// cancellation does not reach the hooks (a cancelled request's scope must still close its
    /// connection); when no hook suspends, it finishes before `shutdown()` returns.
    /// `nonisolated(nonsending)`, as the rest of the shutdown's own chain (`finishShutdown`,
    /// `runHooks`): it runs where its caller runs, so `withScope` pays no executor hop for it
    /// (measured: 711 instructions per request in benchmark K2); a hook, a concurrent closure,
    /// still runs off the caller's actor.
    nonisolated(nonsending) func runShutdownOnce() async -> (outcome: ShutdownError?, started: Bool) {
        let starts = withState { state -> Bool in
            guard case .notStarted = state.shutdownProgress else { return false }
            state.shutdownProgress = .running(waiters: [])
            return true
        }
        if starts {
            let records = beginShutdown()
            startImmediateTask { await self.finishShutdown(records) }
        }
        if case .finished(let outcome) = withState({ $0.shutdownProgress }) { return (outcome, starts) }
        return (await awaitShutdownOutcome(), starts)
    }

    /// Waits for the outcome of the shutdown that has begun.
    private nonisolated(nonsending) func awaitShutdownOutcome() async -> ShutdownError? {
        let record = WaitRecords.begin("a task waits for the shutdown of '\(name)' that another call began")
        defer { WaitRecords.end(record) }
        return await withCheckedContinuation { continuation in
            let outcome = withState { state -> ShutdownError?? in
                switch state.shutdownProgress {
                case .running(var waiters):
                    waiters.append(continuation)
                    state.shutdownProgress = .running(waiters: waiters)
                    return nil
                case .finished(let outcome):
                    return .some(outcome)
                case .notStarted:
                    preconditionFailure("ScopeGraph: a shutdown waited for was never started")
                }
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }

    /// Records the shutdown's outcome and resumes every caller waiting for it.
    func publishShutdownOutcome(_ outcome: ShutdownError?) {
        let waiters = withState { state in
            guard case .running(let waiters) = state.shutdownProgress else {
                preconditionFailure("ScopeGraph: a shutdown finished twice")
            }
            state.shutdownProgress = .finished(outcome)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
