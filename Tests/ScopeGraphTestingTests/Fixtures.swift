import Dispatch
import ScopeGraph
import ScopeGraphTestSupport
import Testing

// Shared test doubles. Every test builds its own containers from these; nothing here is mutable
// global state.

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

/// A container "app" whose `String` is "real", for the overrides of a test to replace.
func appWithARealString() -> Container {
    let container = Container(name: "app")
    container.register(String.self) { _ in "real" }
    return container
}

/// A container named `name` with a real `API` and a `Profile` singleton that depends on it, as
/// an app's composition root registers them.
func containerWithTheRealAPI(named name: String) -> Container {
    let container = Container(name: name)
    container.register((any API).self) { _ in RealAPI() }
    container.register(Profile.self, lifetime: .singleton) { r in Profile(api: try r.resolve()) }
    return container
}

/// A container with a real `API` and a `Profile` singleton that depends on it, with counters
/// of how often each factory ran.
struct ProfileFixture {
    let container: Container
    let apiBuilds = Counter()
    let profileBuilds = Counter()

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

/// Main-actor state, like a view model's.
@MainActor final class Screen {
    var title = ""
}

/// Suspends every caller of `arrive()` until `count` callers have arrived.
actor AsyncGate {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    func arrive() async {
        arrived += 1
        if arrived >= count {
            for continuation in waiting { continuation.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// `resultsOfTasks(count)`, each task given a gate that lets them all through together once
/// all `count` have arrived at it (so that, say, all their scopes are active at once).
func resultsOfTasksThatMeet<T: Sendable>(
    _ count: Int, _ body: @escaping @Sendable (_ index: Int, _ gate: AsyncGate) async throws -> T
) async throws -> [Int: T]? {
    let gate = AsyncGate(count: count)
    return try await resultsOfTasks(count) { try await body($0, gate) }
}
