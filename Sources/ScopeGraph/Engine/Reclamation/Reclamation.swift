import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Safe memory reclamation for the lock-free reads (published instances, memo snapshots), by
/// epochs.
///
/// A reader announces the current epoch in its thread's state for the duration of a read
/// (`read`), and the objects it reads stay alive meanwhile. A writer that unlinks an object
/// calls `synchronize()` before releasing it: it advances the epoch and waits until every
/// thread that announced an older epoch has finished its read. Reads are short (a load and a
/// retain), so the wait is too. A read never nests another read (asserted in debug builds).
enum Reclamation {
    private static let epoch = Atomic<UInt64>(1)
    /// Every thread that ever read, until it exits.
    private static let threads = Locked<[ThreadState]>([])

    /// Runs `body` as a protected read on the current thread.
    @inline(__always)
    static func read<R>(_ body: () -> R) -> R {
        ThreadState.currentUnmanaged._withUnsafeGuaranteedRef { thread in
            begin(thread)
            defer { end(thread) }
            return body()
        }
    }

    /// Opens a protected read on `thread` (the current thread's state).
    @inline(__always)
    static func begin(_ thread: ThreadState) {
        assert(thread.announced.load(ordering: .relaxed) == 0, "ScopeGraph: a protected read nested in another")
        thread.announced.store(epoch.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
    }

    /// Closes the protected read `begin` opened.
    @inline(__always)
    static func end(_ thread: ThreadState) {
        assert(thread.announced.load(ordering: .relaxed) != 0, "ScopeGraph: a protected read ended twice")
        thread.announced.store(0, ordering: .releasing)
    }

    /// Whether the current thread is inside a protected read (for debug assertions).
    static var isReading: Bool { ThreadState.current.announced.load(ordering: .relaxed) != 0 }

    /// Waits until no thread is inside a read that began before this call: an object unlinked
    /// before it may then be released.
    static func synchronize() {
        let target = epoch.add(1, ordering: .sequentiallyConsistent).newValue
        let states = threads.withLock { $0 }
        for state in states {
            while true {
                let announced = state.announced.load(ordering: .sequentiallyConsistent)
                if announced == 0 || announced >= target { break }
                sched_yield()
            }
        }
    }

    /// How many threads take part (for tests).
    static var threadCount: Int { threads.withLock { $0.count } }

    fileprivate static func register(_ state: ThreadState) { threads.withLock { $0.append(state) } }
    fileprivate static func unregister(_ state: ThreadState) { threads.withLock { $0.removeAll { $0 === state } } }
}

/// What ScopeGraph keeps per thread: the epoch a protected read announced, and the
/// synchronous resolve running on the thread (so that a `container.resolve` made directly
/// inside a factory joins it).
final class ThreadState: @unchecked Sendable {
    // @unchecked: `announced` is atomic; `context` and `spare` are only touched by the thread
    // the state belongs to. Their exclusivity is unchecked for the same reason as the
    // context's fields: one thread, no overlapping accesses, and the dynamic checks would cost
    // on every resolve. ThreadSanitizer checks the confinement in CI.
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
        assert(state.context == nil, "ScopeGraph: a thread exited inside a resolve")
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
