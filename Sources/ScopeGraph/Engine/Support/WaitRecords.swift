import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Debug builds: what each resolve, reader and shutdown caller is waiting for right now, so that
/// a test whose watchdog fires says which wait hung (the test support's watchdogs print
/// `current`). A wait records a line when it begins and removes it when it ends; a line names
/// the waiter (a resolve by its debug identity, on a thread or in a task), what it waits for,
/// and whom. Release builds record nothing.
package enum WaitRecords {
    #if DEBUG
    private static let records = Locked<[UInt64: String]>([:])
    private static let serials = Atomic<UInt64>(0)
    #endif

    /// Records a wait that begins now; returns what `end` takes (0 in release builds).
    static func begin(_ description: @autoclosure () -> String) -> UInt64 {
        #if DEBUG
        let id = serials.add(1, ordering: .relaxed).newValue
        let line = description()
        records.withLock { $0[id] = line }
        return id
        #else
        return 0
        #endif
    }

    /// Removes the record of a wait that ended.
    static func end(_ id: UInt64) {
        #if DEBUG
        guard id != 0 else { return }
        _ = records.withLock { $0.removeValue(forKey: id) }
        #endif
    }

    /// The waits in progress, oldest first; empty in release builds.
    package static var current: [String] {
        #if DEBUG
        return records.withLock { records in records.sorted { $0.key < $1.key }.map(\.value) }
        #else
        return []
        #endif
    }

    /// Who waits: `context` by its debug identity, and where it runs.
    static func waiter(_ context: ResolutionContext) -> String {
        let place = context.isAsync ? "in a task" : "on thread \(UInt(bitPattern: Int(bitPattern: pthread_self())))"
        return "resolve #\(identity(of: context)) \(place)"
    }

    /// Records that `context`, finished, waits for the other resolves of its group to finish
    /// (synchronously or suspended).
    static func beginWaitForGroup(of context: ResolutionContext) -> UInt64 {
        begin("\(waiter(context)) waits for the other resolves of its group to finish")
    }

    /// `context`'s debug identity (0 in release builds).
    static func identity(of context: ResolutionContext) -> UInt64 {
        #if DEBUG
        return context.liveness.current
        #else
        return 0
        #endif
    }
}
