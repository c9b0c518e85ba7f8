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

    /// Adds a thread's state to the list `synchronize()` scans (`ThreadState`, on first use).
    static func register(_ state: ThreadState) { threads.withLock { $0.append(state) } }
    /// Removes an exiting thread's state from the list (`ThreadState`, when its thread exits).
    static func unregister(_ state: ThreadState) { threads.withLock { $0.removeAll { $0 === state } } }
}
