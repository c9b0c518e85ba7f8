import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What ScopeGraph keeps per thread: the epoch a protected read announced, and the
/// synchronous resolve running on the thread (so that a `container.resolve` made directly
/// inside a factory joins it).
@usableFromInline
final class ThreadState: @unchecked Sendable {
    // @unchecked: `announced` is atomic; `context`, `spare` and the pending construction are
    // only touched by the thread the state belongs to. Their exclusivity is unchecked for the
    // same reason as the context's fields: one thread, no overlapping accesses, and the
    // dynamic checks would cost on every resolve. ThreadSanitizer checks the confinement in CI.
    let announced = Atomic<UInt64>(0)
    /// The resolve in progress on this thread, unretained (a retain and a release per request
    /// otherwise). Invariant: whoever binds a context holds it strongly until it unbinds it
    /// (`withContext`, `bound`, `BuildCoordinator.runBlocks`); debug builds check it
    /// (`DebugLiveness`).
    @exclusivity(unchecked) private(set) var boundContext: Unmanaged<ResolutionContext>?
    #if DEBUG
    @exclusivity(unchecked) private var boundIdentity: UInt64 = 0
    #endif

    /// The resolve in progress on this thread.
    var context: ResolutionContext? {
        get {
            assertBoundContextAlive()
            return boundContext?.takeUnretainedValue()
        }
        set {
            boundContext = newValue.map { .passUnretained($0) }
            #if DEBUG
            boundIdentity = newValue?.liveness.current ?? 0
            #endif
        }
    }

    /// Whether `context` is the resolve in progress on this thread (compared without
    /// retaining it).
    func isBound(_ context: ResolutionContext) -> Bool {
        boundContext?.toOpaque() == Unmanaged.passUnretained(context).toOpaque()
    }

    @inline(__always)
    func assertBoundContextAlive() {
        #if DEBUG
        guard let boundContext else { return }
        let identity = boundContext._withUnsafeGuaranteedRef { $0.liveness.current }
        assert(identity == boundIdentity, "ScopeGraph: a context was freed while bound to its thread")
        #endif
    }
    /// A finished context that no other thread can reach, kept for the next top-level resolve.
    @exclusivity(unchecked) var spare: ResolutionContext?
    /// The top-level fast-path construction running on this thread without a resolve yet
    /// (`FastConstruction.swift`, "The pending top-level construction"): its entry and where
    /// it started, both unretained (the construction holds its entry, the caller of `resolve`
    /// its container, until the construction ends; checked in debug builds), and the resolve a
    /// request inside its factory made for it.
    @exclusivity(unchecked) var pendingEntry: Unmanaged<AnyEntry>?
    @exclusivity(unchecked) var pendingStart: Unmanaged<Container>?
    @exclusivity(unchecked) var pendingContext: ResolutionContext?
    #if DEBUG
    @exclusivity(unchecked) var pendingIdentities: (entry: UInt64, start: UInt64) = (0, 0)
    #endif

    /// The current thread's state, made on first use and freed when the thread exits.
    static var current: ThreadState { currentUnmanaged.takeUnretainedValue() }

    /// `current`, unretained: the thread-local holds it until the thread exits.
    static var currentUnmanaged: Unmanaged<ThreadState> {
        // Invariant: the key only ever holds a retained `ThreadState` (set below).
        if let raw = pthread_getspecific(threadStateKey) { return Unmanaged.fromOpaque(raw) }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> Unmanaged<ThreadState> {
        let state = Unmanaged.passRetained(ThreadState())
        Reclamation.register(state.takeUnretainedValue())
        let result = pthread_setspecific(threadStateKey, state.toOpaque())
        precondition(result == 0, "ScopeGraph: pthread_setspecific failed with error \(result)")
        return state
    }

    fileprivate static func threadExited(_ raw: UnsafeMutableRawPointer) {
        let state = Unmanaged<ThreadState>.fromOpaque(raw).takeRetainedValue()
        assert(state.context == nil && state.pendingEntry == nil, "ScopeGraph: a thread exited inside a resolve")
        Reclamation.unregister(state)
    }
}

private let threadStateKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
    let result = pthread_key_create(&key) { raw in ThreadState.threadExited(raw) }
    #else
    let result = pthread_key_create(&key) { raw in if let raw { ThreadState.threadExited(raw) } }
    #endif
    precondition(result == 0, "ScopeGraph: pthread_key_create failed with error \(result)")
    return key
}()
