import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Epoch-based reclamation: what lets a cached resolve read shared structures (a container's
/// memo snapshot, a slot's published box) without taking any lock, while writers that replace
/// them (registration, removal, cache clearing) still free the old ones promptly.
///
/// A reader announces the global epoch in its own `ThreadState` for the duration of a short
/// read (no user code runs inside), then clears the announcement. A writer first unlinks an
/// object, then calls `synchronize()`, which advances the epoch and waits until every reader
/// has either no announcement or one made at the new epoch, and only then releases the object.
/// Removing a registration therefore still releases its instance before `remove` returns.
///
/// Why this is safe: all the operations involved are sequentially consistent. A reader that
/// still saw the old pointer loaded it before the writer's unlink, so its announcement (made
/// before that load) precedes the writer's scan, and the epoch it announced (loaded before the
/// announcement) is older than the one `synchronize` created: the writer waits for it.
enum Reclamation {
    private static let epoch = Atomic<UInt64>(1)
    private static let threads = Locked<[ThreadState]>([])

    /// Runs `body` as a protected read on the calling thread. `body` must be short, must not
    /// call user code, and must not start another protected read.
    @inline(__always)
    static func read<R>(_ thread: ThreadState, _ body: () -> R) -> R {
        begin(thread)
        let result = body()
        end(thread)
        return result
    }

    /// Opens a protected read on the calling thread; pair with `end`.
    @inline(__always)
    static func begin(_ thread: ThreadState) {
        thread.announced.store(epoch.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
    }

    /// Closes the protected read opened by `begin`.
    @inline(__always)
    static func end(_ thread: ThreadState) {
        thread.announced.store(0, ordering: .releasing)
    }

    /// Waits until no protected read that started before this call is still running. Call it
    /// after unlinking an object from every shared structure and before releasing it. Readers
    /// run no user code and never block, so the wait is a few nanoseconds (or, rarely, until a
    /// preempted reader is scheduled again). Safe with locks held; release the object after
    /// unlocking, since its deinit may run user code.
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

    fileprivate static func register(_ state: ThreadState) { threads.withLock { $0.append(state) } }
    fileprivate static func unregister(_ state: ThreadState) { threads.withLock { $0.removeAll { $0 === state } } }
}

/// Per-thread state of the resolver: the resolve in progress on this thread (if any) and the
/// announcement slot of epoch-based reclamation. Created on a thread's first resolve, freed
/// when the thread exits.
final class ThreadState: @unchecked Sendable {
    // @unchecked: `context` is only touched by the owning thread; `announced` is atomic.

    /// The resolve running on this thread, unretained (bits; 0 for none): set and cleared by
    /// the top-level resolve that owns the context, for exactly its duration. Only the owning
    /// thread touches it; it is atomic only so that reading it needs no exclusivity check.
    private let contextBits = Atomic<Int>(0)
    let announced = Atomic<UInt64>(0)

    var context: Unmanaged<ResolutionContext>? {
        get {
            let bits = contextBits.load(ordering: .relaxed)
            return bits == 0 ? nil : Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
        }
        set { contextBits.store(newValue.map { Int(bitPattern: $0.toOpaque()) } ?? 0, ordering: .relaxed) }
    }

    /// The context this thread's top-level resolves use (retained; owning thread only): kept
    /// between resolves, so a resolve allocates none. `nil` before the first resolve, and
    /// after one whose context other threads may still reference (see `retireOwnContext`).
    @exclusivity(unchecked) var ownContext: Unmanaged<ResolutionContext>?
    /// A context given up by `retireOwnContext`, released when the next one is made.
    @exclusivity(unchecked) private var retiredContext: Unmanaged<ResolutionContext>?

    /// Stops using the own context for later resolves, because other threads may still
    /// reference it. It is released only at the next call or when the thread exits, since
    /// the resolve that gives it up is still running on it.
    func retireOwnContext() {
        retiredContext?.release()
        retiredContext = ownContext
        ownContext = nil
    }
    /// Keeps the announcement on a cache line of its own, away from other threads' states.
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// The calling thread's state.
    static var current: ThreadState { currentUnmanaged.takeUnretainedValue() }

    /// The calling thread's state, unretained (the thread-local keeps it alive).
    @inline(__always)
    static var currentUnmanaged: Unmanaged<ThreadState> {
        if let raw = pthread_getspecific(threadStateKey) { return Unmanaged.fromOpaque(raw) }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> Unmanaged<ThreadState> {
        let state = Unmanaged.passRetained(ThreadState())
        Reclamation.register(state.takeUnretainedValue())
        pthread_setspecific(threadStateKey, state.toOpaque())
        return state
    }

    deinit {
        if let ownContext {
            // A reused context keeps its group of one, which references it back.
            ownContext.takeUnretainedValue().dropGroup()
            ownContext.release()
        }
        retiredContext?.release()
    }

    fileprivate static func threadExited(_ raw: UnsafeMutableRawPointer) {
        let state = Unmanaged<ThreadState>.fromOpaque(raw).takeRetainedValue()
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
    precondition(
        result == 0, "ScopeGraph could not create its thread-local key (pthread_key_create returned \(result))")
    return key
}()
