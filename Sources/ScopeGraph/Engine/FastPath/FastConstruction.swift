#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The typed fast path, compiled into clients: a `unique` registration with a plain
/// synchronous factory and no `onResolved` blocks, found by the cached-read probe (so no scope
/// is active and the container is not shut down), is constructed by code specialized for its
/// type in the caller's module. Everything it needs of the engine is here, not generic: begin
/// (join the resolve in progress on this thread, or begin one; push the frame, with the cycle
/// check), then the factory, called directly, then `finish` or `fail`. Anything else (async,
/// the main actor, a resolve in another task, observers, errors) takes the general path.
/// Docs/Architecture.md lists what is compiled into clients.
@usableFromInline
struct FastConstruction {
    /// What the factory receives: the request's starting container and the resolve.
    @usableFromInline let resolver: Resolver
    private let context: ResolutionContext
    private let entry: AnyEntry
    /// The thread whose resolve this construction began (a top-level request), unretained:
    /// the thread-local keeps the thread's state alive while the thread runs.
    private let beganOn: Unmanaged<ThreadState>?

    /// Begins the construction of `entry`'s instance for a request starting at `start`: in
    /// the resolve of `resolver` when the request comes through a factory's `Resolver` (which
    /// must be bound to this thread), else in the resolve bound to this thread or a new
    /// top-level one.
    /// `nil` when the general path must take the request (a resolver used on another thread
    /// or in an async factory's task). Throws `.circularDependency` when the registration is
    /// already being built in this resolve.
    @usableFromInline
    static func begin(_ entry: AnyEntry, from start: Container, via resolver: Resolver?) throws -> FastConstruction? {
        let thread = ThreadState.currentUnmanaged
        let context: ResolutionContext
        var beganOn: Unmanaged<ThreadState>?
        if let resolver {
            guard let resolverContext = resolver.context,
                thread._withUnsafeGuaranteedRef({ $0.isBound(resolverContext) })
            else { return nil }
            context = resolverContext
        } else if let bound = thread._withUnsafeGuaranteedRef({ $0.context }) {
            context = bound
        } else {
            // A `container.resolve` made directly inside an async factory joins its resolve, and
            // a request from one of its child tasks is a branch of it (a child task inherits the
            // task-local): both are the general path's.
            if ResolutionContext.taskContext != nil { return nil }
            context = thread._withUnsafeGuaranteedRef { state in
                let context = ResolutionContext.takeSpare(of: state) ?? ResolutionContext()
                state.context = context
                return context
            }
            beganOn = thread
        }
        context.noteTopLevelStart(start)
        do {
            try context.enterConstruction(entry, key: nil, identity: entry.serial)
        } catch {
            if let beganOn { context.endFailedTopLevel(error, on: beganOn) }
            throw error
        }
        return FastConstruction(
            resolver: Resolver(container: start, context: context), context: context, entry: entry, beganOn: beganOn)
    }

    /// The factory returned: pops the frame and, for a top-level request, ends the resolve
    /// (its dependencies' blocks, publication).
    @usableFromInline
    func finish() throws {
        context.leaveConstruction(entry)
        guard let beganOn else { return }
        try beganOn._withUnsafeGuaranteedRef { thread in
            defer { context.unbind(from: thread) }
            try context.endTopLevel()
        }
    }

    /// The factory threw `error`: pops the frame and, for a top-level request, fails the
    /// resolve. Returns the error to throw (see `ResolutionContext.failConstruction`).
    @usableFromInline
    func fail(_ error: any Error) -> any Error {
        let failure = context.failConstruction(entry.key, error)
        if let beganOn { context.endFailedTopLevel(failure, on: beganOn) }
        return failure
    }

    /// Whether the probe may hand a registration to this path. Debug builds take the general
    /// path only when the environment sets `SCOPEGRAPH_GENERAL_PATH_ONLY` (CI runs the core
    /// suites both ways).
    #if DEBUG
    static let isEnabled = getenv("SCOPEGRAPH_GENERAL_PATH_ONLY") == nil
    #else
    @inline(__always) static var isEnabled: Bool { true }
    #endif
}

extension FastConstruction {
    /// Resolves `entry`'s instance on the fast path, or `nil` when the general path must
    /// (see `begin`).
    @inlinable
    static func construct<T>(_ entry: Entry<T>, from start: Container, via resolver: Resolver?) throws -> T? {
        guard let construction = try begin(entry, from: start, via: resolver) else { return nil }
        let value: T
        do {
            value = try entry.callPlain(construction.resolver)
        } catch {
            throw construction.fail(error)
        }
        try construction.finish()
        return value
    }
}

extension ResolutionContext {
    /// Fails and unbinds a top-level resolve begun on `thread` (`FastConstruction`), as
    /// `withContext` does.
    func endFailedTopLevel(_ error: any Error, on thread: Unmanaged<ThreadState>) {
        failTopLevel(error)
        thread._withUnsafeGuaranteedRef { unbind(from: $0) }
    }
}
