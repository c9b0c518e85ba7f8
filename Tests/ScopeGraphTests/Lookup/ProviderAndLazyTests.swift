import ScopeGraph
import ScopeGraphTestSupport
import Testing

private final class Session: Sendable {
    let number: Int
    init(number: Int) { self.number = number }
}

/// Creates sessions later, through a provider.
private final class LoginFlow: Sendable {
    let makeSession: Provider<Session>
    init(makeSession: Provider<Session>) { self.makeSession = makeSession }
}

private final class Exporter: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

/// Holds an exporter it must not build until used.
private final class ReportScreen: Sendable {
    let exporter: Lazy<Exporter>
    init(exporter: Lazy<Exporter>) { self.exporter = exporter }
}

private final class Part: Sendable {}

/// A graph part and a lazy reference to the same part.
private final class Assembly: @unchecked Sendable {
    // @unchecked: `lazyPartSeen` is written by the onResolved block of the one resolve that
    // builds the assembly, before the instance is handed out.
    let part: Part
    let lazyPart: Lazy<Part>
    var lazyPartSeen: Part?
    init(part: Part, lazyPart: Lazy<Part>) {
        self.part = part
        self.lazyPart = lazyPart
    }
}

/// `Provider<T>` and `Lazy<T>`: resolvable for every registered `T`, resolving it when called
/// or first read, from the right container, with the usual lifetimes and errors.
@Suite struct ProviderAndLazyTests {
    @Test func aProviderResolvesANewUniqueInstanceOnEveryCall() throws {
        let container = Container(name: "app")
        let built = Counter()
        container.register(Session.self, lifetime: .unique) { _ in Session(number: built.increment()) }
        container.register(LoginFlow.self) { r in LoginFlow(makeSession: try r.resolve(Provider<Session>.self)) }

        let flow = try container.resolve(LoginFlow.self)
        #expect(built.value == 0)
        #expect(try flow.makeSession().number == 1)
        #expect(try flow.makeSession().number == 2)
        #expect(built.value == 2)
    }

    @Test func aProviderOfASingletonReturnsTheOneInstance() throws {
        let container = Container(name: "app")
        container.register(Session.self, lifetime: .singleton) { _ in Session(number: 7) }
        let provider = try container.resolve(Provider<Session>.self)
        #expect(try provider() === provider())
        #expect(try provider() === container.resolve(Session.self))
    }

    @Test func aProviderResolvesFromTheContainerItsRequestStartedFrom() throws {
        let root = Container(name: "root")
        root.register(Session.self) { _ in Session(number: 0) }
        root.register(LoginFlow.self) { r in LoginFlow(makeSession: try r.resolve()) }
        let child = root.makeChild(name: "child")
        child.register(Session.self) { _ in Session(number: 1) }

        #expect(try child.resolve(LoginFlow.self).makeSession().number == 1)
        #expect(try root.resolve(LoginFlow.self).makeSession().number == 0)
    }

    @Test func aProviderKeepsTheTagItWasRequestedWith() throws {
        let container = Container(name: "app")
        container.register(Session.self) { _ in Session(number: 0) }
        container.register(Session.self, tag: "admin") { _ in Session(number: 99) }
        let admin = try container.resolve(Provider<Session>.self, tag: "admin")
        #expect(try admin().number == 99)
    }

    @Test func resolvingAProviderOfAnUnregisteredTypeThrowsNotRegisteredForThatType() throws {
        let container = Container(name: "app")
        let error = try #require(throws: ResolutionError.self) { try container.resolve(Provider<Session>.self) }
        #expect(error.kind == .notRegistered)
        #expect(error.key.typeName.contains("Session"))
        #expect(try container.resolveIfRegistered(Provider<Session>.self) == nil)
    }

    @Test func aProviderCallReportsTheFactorysErrorAndTheNextCallTriesAgain() throws {
        struct Offline: Error {}
        let container = Container(name: "app")
        let attempts = Counter()
        container.register(Session.self) { _ in
            if attempts.increment() == 1 { throw Offline() }
            return Session(number: 1)
        }
        let provider = try container.resolve(Provider<Session>.self)
        let error = try #require(throws: ResolutionError.self) { try provider() }
        #expect(error.kind.factoryError is Offline)
        #expect(try provider().number == 1)
    }

    @Test func aProviderWhoseContainerIsGoneThrowsNotRegisteredSayingSo() throws {
        var container: Container? = Container(name: "short-lived")
        container!.register(Session.self) { _ in Session(number: 0) }
        let provider = try container!.resolve(Provider<Session>.self)
        container = nil
        let error = try #require(throws: ResolutionError.self) { try provider() }
        #expect(error.kind == .notRegistered)
        #expect(error.description.contains("short-lived"))
        #expect(error.description.contains("deallocated"))
    }

    @Test func aSingletonHoldingAProviderDoesNotKeepItsContainerAlive() throws {
        weak var weakContainer: Container?
        do {
            let container = Container(name: "app")
            weakContainer = container
            container.register(Session.self) { _ in Session(number: 0) }
            container.register(LoginFlow.self, lifetime: .singleton) { r in LoginFlow(makeSession: try r.resolve()) }
            _ = try container.resolve(LoginFlow.self)
        }
        #expect(weakContainer == nil)
    }

    @Test func aRegistrationOfProviderItselfWinsOverTheBuiltInOne() throws {
        let container = Container(name: "app")
        container.register(Session.self) { _ in Session(number: 0) }
        let other = Container(name: "other")
        other.register(Session.self) { _ in Session(number: 5) }
        container.register(Provider<Session>.self) { _ in try other.resolve(Provider<Session>.self) }
        #expect(try container.resolve(Provider<Session>.self)().number == 5)
    }

    @Test func aProviderResolvesAsyncRegistrationsThroughResolveAsync() async throws {
        let finished = try await withAsyncWatchdog { try await Self.providerResolvesAsync() }
        #expect(finished == true)
    }

    private static func providerResolvesAsync() async throws -> Bool {
        let container = Container(name: "app")
        container.register(Session.self) { _ async throws in
            try await Task.sleep(for: .milliseconds(1))
            return Session(number: 3)
        }
        let provider = try container.resolve(Provider<Session>.self)
        let error = try #require(throws: ResolutionError.self) { try provider() }
        #expect(error.kind == .requiresAsync)
        #expect(try await provider.resolveAsync().number == 3)
        let asyncProvider = try await container.resolveAsync(Provider<Session>.self)
        #expect(try await asyncProvider.resolveAsync().number == 3)
        return true
    }

    @Test func aLazyBuildsNothingUntilReadThenKeepsTheFirstInstance() throws {
        let container = Container(name: "app")
        let built = Counter()
        container.register(Exporter.self, lifetime: .unique) { _ in
            Exporter(name: "pdf-\(built.increment())")
        }
        container.register(ReportScreen.self) { r in ReportScreen(exporter: try r.resolve()) }

        let screen = try container.resolve(ReportScreen.self)
        #expect(built.value == 0)
        #expect(!screen.exporter.isResolved)
        let first = try screen.exporter.value
        #expect(first.name == "pdf-1")
        #expect(try screen.exporter.value === first)
        #expect(screen.exporter.isResolved)
        #expect(built.value == 1)
    }

    @Test func copiesOfALazyShareItsInstance() throws {
        let container = Container(name: "app")
        container.register(Exporter.self, lifetime: .unique) { _ in Exporter(name: "pdf") }
        let lazy = try container.resolve(Lazy<Exporter>.self)
        let copy = lazy
        #expect(try copy.value === lazy.value)
    }

    @Test func aLazyReadThatFailsCachesNothingAndTheNextReadTriesAgain() throws {
        struct Offline: Error {}
        let container = Container(name: "app")
        let attempts = Counter()
        container.register(Exporter.self) { _ in
            if attempts.increment() == 1 { throw Offline() }
            return Exporter(name: "pdf")
        }
        let lazy = try container.resolve(Lazy<Exporter>.self)
        #expect(throws: ResolutionError.self) { try lazy.value }
        #expect(!lazy.isResolved)
        #expect(try lazy.value.name == "pdf")
    }

    @Test func aLazyOfAGraphServiceReadDuringTheResolveSharesThatResolvesInstance() throws {
        let container = Container(name: "app")
        container.register(Part.self) { _ in Part() }
        container.register(Assembly.self) { r in Assembly(part: try r.resolve(), lazyPart: try r.resolve()) }
            .onResolved { _, assembly in assembly.lazyPartSeen = try assembly.lazyPart.value }

        let assembly = try container.resolve(Assembly.self)
        #expect(assembly.lazyPartSeen === assembly.part)
    }

    @Test func aLazyOfAGraphServiceReadAfterTheResolveGetsAnInstanceOfItsOwn() throws {
        let container = Container(name: "app")
        container.register(Part.self) { _ in Part() }
        container.register(Assembly.self) { r in Assembly(part: try r.resolve(), lazyPart: try r.resolve()) }

        let assembly = try container.resolve(Assembly.self)
        #expect(try assembly.lazyPart.value !== assembly.part)
    }

    @Test func aLazyReadAsyncResolvesAnAsyncRegistration() async throws {
        let finished = try await withAsyncWatchdog { try await Self.lazyReadsAsync() }
        #expect(finished == true)
    }

    private static func lazyReadsAsync() async throws -> Bool {
        let container = Container(name: "app")
        container.register(Exporter.self, lifetime: .singleton) { _ async throws in
            try await Task.sleep(for: .milliseconds(1))
            return Exporter(name: "async")
        }
        let lazy = try container.resolve(Lazy<Exporter>.self)
        #expect(try await lazy.valueAsync().name == "async")
        #expect(try lazy.value.name == "async")
        return true
    }

    @Test func manyThreadsReadingOneLazyAllGetOneInstance() throws {
        let container = Container(name: "app")
        container.register(Exporter.self, lifetime: .unique) { _ in Exporter(name: "pdf") }
        let lazy = try container.resolve(Lazy<Exporter>.self)
        let seen = Guarded<[ObjectIdentifier]>([])
        let finished = runOnThreads(8, timeout: 20) { _ in
            for _ in 0..<200 {
                let value = try! lazy.value
                seen.withLock { $0.append(ObjectIdentifier(value)) }
            }
        }
        #expect(finished)
        #expect(Set(seen.current).count == 1)
    }
}
