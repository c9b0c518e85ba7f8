import Synchronization

/// A value behind the standard `Mutex`, in a class so that several owners can share it.
/// The value is reachable only inside `withLock`.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: the value is only reachable inside `withLock`, with the mutex held.
    private let mutex: Mutex<Value>

    package init(_ value: sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, under the lock. No code that may take this lock again may
    /// run inside.
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        // `Mutex.withLock` returns a `sending` result; this one stays with the caller.
        try mutex.withLock { value throws(E) -> sending Carried<R> in Carried(try body(&value)) }.value
    }
}

/// A result carried out of the lock to the caller that made it.
private struct Carried<R>: @unchecked Sendable {
    // @unchecked: made inside `withLock` and read once by the same caller after unlocking.
    let value: R
    init(_ value: R) { self.value = value }
}
