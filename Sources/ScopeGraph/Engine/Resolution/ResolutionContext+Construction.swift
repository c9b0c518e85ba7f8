/// The one construction path: every new instance, of every lifetime, is built here. A frame is
/// pushed (after checking for a cycle), the factory runs with a `Resolver` that carries this
/// context, and the frame is popped when it returns (queueing the instance's `onResolved`
/// blocks) or throws (turning the error into a `ResolutionError` about the deepest cause).
extension ResolutionContext {
    /// Runs `entry`'s factory for `request`, resolving its dependencies from `root`.
    /// `identity` is set for uncached lifetimes, whose cycles are detected by registration.
    func construct<T>(_ entry: Entry<T>, _ request: Request, root: Container, identity: UInt64? = nil) throws -> T {
        // The frame keeps the requested key only when it is not the entry's own.
        let requested: Key? = request.key == entry.key ? nil : request.key
        try enterConstruction(entry, key: requested, identity: identity)
        let value: T
        do {
            value = try entry.factory.make(Resolver(container: root, context: self), request.arguments)
        } catch {
            throw failConstruction(request.key, error)
        }
        leaveConstruction(entry, key: request.key, root: root, value: value)
        return value
    }

    /// Pushes the frame of a new instance of `entry`. Throws `.circularDependency` when the
    /// same uncached registration is already being built in this resolve.
    private func enterConstruction(_ entry: AnyEntry, key requested: Key?, identity: UInt64?) throws {
        if let identity, stack.contains(where: { $0.identity == identity }) {
            throw cycleError(requested ?? entry.key)
        }
        if let endless = endlessBlockChain(entry, key: requested ?? entry.key) { throw endless }
        stack.append(Frame(requestedKey: requested, entry: entry, identity: identity))
    }

    /// Pops the frame after the factory returned: records the instance for observers and
    /// queues its `onResolved` blocks (their resolver starts at `root`, like the factory's).
    private func leaveConstruction(_ entry: AnyEntry, key: Key, root: Container, value: Any) {
        stack.removeLast()
        lastConstructed = entry.serial
        lastConstructedDepth = stack.count
        if entry.hasOnResolvedBlocks { queueBlocks(of: entry, key: key, root: root, instance: value) }
    }

    /// Pops the frame after the factory threw; returns the error to throw: a nested
    /// `ResolutionError` unchanged, anything else as `.factoryFailed` with this frame's path.
    private func failConstruction(_ key: Key, _ error: any Error) -> any Error {
        defer { stack.removeLast() }
        if let failure = error as? ResolutionError { return failure }
        return frameError(.factoryFailed(error), key)
    }
}
