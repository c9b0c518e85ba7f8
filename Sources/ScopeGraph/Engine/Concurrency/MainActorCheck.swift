import Dispatch
import Foundation

/// Whether the current code runs on the main actor, decided without trapping.
///
/// `Thread.isMainThread` is not enough: on Linux, main-actor jobs run on the main dispatch
/// queue, which (when the main thread is busy elsewhere, as under `swift test`) may be drained
/// by another thread. The main queue is therefore marked with a queue-specific value, which
/// every thread draining it sees.
enum MainActorCheck {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: true)
        return true
    }()

    /// True on the main thread or on the main dispatch queue.
    static var isOnMainActor: Bool {
        _ = marked
        return Thread.isMainThread || DispatchQueue.getSpecific(key: key) == true
    }

    /// Runs `body` on the main actor, which the caller checked it is on (`isOnMainActor`).
    static func runAssumingMainActor<T>(_ body: @MainActor () throws -> T) throws -> T {
        try MainActor.assumeIsolated { () throws -> Carried<T> in Carried(try body()) }.value
    }
}
