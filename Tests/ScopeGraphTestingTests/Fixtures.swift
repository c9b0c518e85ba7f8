import Dispatch
import ScopeGraph
import Testing

// Shared test doubles. Every test builds its own containers from these; nothing here is mutable
// global state.

/// Counts calls, safely from any thread.
final class Tally: Sendable {
    private let count = Locked(0)
    var value: Int { count.withLock { $0 } }
    @discardableResult func increment() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}

protocol API: AnyObject, Sendable {
    var name: String { get }
}

final class RealAPI: API {
    let name = "real"
}

final class FakeAPI: API {
    let name: String
    init(_ name: String = "fake") { self.name = name }
}

/// A service that depends on `API`; registered as a singleton in most tests.
final class Profile: Sendable {
    let api: any API
    init(api: any API) { self.api = api }
}

/// A plain class with an identity, for lifetimes and weak-reference checks.
final class Widget: Sendable {
    let label: String
    init(_ label: String = "") { self.label = label }
}

/// A mutable box for property injection through `onResolved`.
final class Holder: Sendable {
    private let stored = Locked<(any API)?>(nil)
    var api: (any API)? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

/// A container with a real `API` and a `Profile` singleton that depends on it, with counters
/// of how often each factory ran.
struct ProfileFixture {
    let container: Container
    let apiBuilds = Tally()
    let profileBuilds = Tally()

    init(name: String = "app") {
        container = Container(name: name)
        let apiBuilds = apiBuilds
        let profileBuilds = profileBuilds
        container.register((any API).self, lifetime: .singleton) { _ in
            apiBuilds.increment()
            return RealAPI()
        }
        container.register(Profile.self, lifetime: .singleton) { r in
            profileBuilds.increment()
            return Profile(api: try r.resolve())
        }
    }
}

struct Boom: Error {}

/// Runs `body` on a new thread and waits at most `seconds` for it; `nil` on timeout (recorded).
func onAnotherThread<R: Sendable>(
    seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> R
) -> R? {
    let outcome = Locked<R?>(nil)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        let value = body()
        outcome.withLock { $0 = value }
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else {
        Issue.record("timed out after \(seconds) s", sourceLocation: sourceLocation)
        return nil
    }
    return outcome.withLock { $0 }
}

/// Main-actor state, like a view model's.
@MainActor final class Screen {
    var title = ""
}
