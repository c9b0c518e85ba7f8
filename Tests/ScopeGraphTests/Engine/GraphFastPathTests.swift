import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// A `graph` request made inside a resolve takes the typed fast path
/// (`Engine/FastPath/FastConstruction.swift`): it reads the instance the resolve already shares
/// for requests from its starting container, or builds one and keeps it in the resolve. A
/// top-level `graph` request declines and takes the general path. Each test calls
/// `FastConstruction.construct` as `Resolver.resolve` and `Container.resolve` do when the probe
/// hands them a registration, so that the fast path runs whatever the memo holds and with the
/// debug switch off too; whatever else the factories ask takes the path the probe allows.
@Suite struct GraphFastPathTests {
    final class Shared: Sendable {}
    final class Top: Sendable {}
    final class Holder: @unchecked Sendable {
        var shared: Shared?
    }

    /// `resolver.resolve(T.self)` on the fast path.
    private static func resolveOnFastPath<T>(_ entry: Entry<T>, via resolver: Resolver) throws -> T {
        try #require(try FastConstruction.construct(entry, via: resolver, on: ThreadState.currentUnmanaged))
    }

    @Test func requestsOfOneResolveFromOneContainerShareTheInstanceTheFastPathBuilt() throws {
        let container = Container(name: "app")
        let builds = Counter()
        container.register(Shared.self, lifetime: .graph) { _ in
            builds.increment()
            return Shared()
        }
        let shared = try container.plainEntry(of: Shared.self)
        let seen = Guarded<[Shared]>([])
        container.register(Top.self, lifetime: .unique) { r in
            let first = try Self.resolveOnFastPath(shared, via: r)
            let second = try Self.resolveOnFastPath(shared, via: r)
            let general = try r.resolve(Shared.self, tag: nil)
            seen.withLock { $0 += [first, second, general] }
            return Top()
        }
        _ = try container.resolve(Top.self)
        _ = try container.resolve(Top.self)
        let instances = seen.current
        try #require(instances.count == 6)
        #expect(instances[1] === instances[0] && instances[2] === instances[0], "one resolve, one graph instance")
        #expect(instances[3] !== instances[0], "the next resolve got the last one's instance")
        #expect(builds.value == 2)
    }

    @Test func aChildsRequestInTheSameResolveGetsAnInstanceOfItsOwn() throws {
        let app = Container(name: "app")
        let child = app.makeChild(name: "request")
        defer { app.removeAll() }  // the factory captures the child, which holds the app
        app.register(Shared.self, lifetime: .graph) { _ in Shared() }
        let shared = try app.plainEntry(of: Shared.self)
        let seen = Guarded<[Shared]>([])
        app.register(Top.self, lifetime: .unique) { r in
            let fromApp = try Self.resolveOnFastPath(shared, via: r)
            let childResolver = Resolver(container: child, context: r.context)
            let fromChild = try Self.resolveOnFastPath(shared, via: childResolver)
            let fromChildAgain = try Self.resolveOnFastPath(shared, via: childResolver)
            seen.withLock { $0 += [fromApp, fromChild, fromChildAgain] }
            return Top()
        }
        _ = try app.resolve(Top.self)
        let instances = seen.current
        try #require(instances.count == 3)
        #expect(instances[1] !== instances[0], "a request from another container shared the app's instance")
        #expect(instances[2] === instances[1])
    }

    /// An `onResolved` block's own request gets the instance its resolve built, though the
    /// factory that asked for it took the fast path.
    @Test func aBlockOfTheResolveGetsTheGraphInstanceItsFactoryGot() throws {
        let container = Container(name: "app")
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        let shared = try container.plainEntry(of: Shared.self)
        let fromFactory = Guarded<Shared?>(nil)
        container.register(Holder.self, lifetime: .unique) { r in
            fromFactory.withLock { $0 = try? Self.resolveOnFastPath(shared, via: r) }
            return Holder()
        }.onResolved { r, holder in holder.shared = try r.resolve(Shared.self, tag: nil) }
        let holder = try container.resolve(Holder.self)
        let built = try #require(fromFactory.current)
        #expect(holder.shared === built)
    }

    @Test func aGraphCycleThroughTheFastPathIsReportedWithItsPath() throws {
        let container = Container(name: "app")
        let shared = Guarded<Entry<Shared>?>(nil)
        defer { shared.withLock { $0 = nil } }  // the entry's factory captures `shared`
        container.register(Shared.self, lifetime: .graph) { r in
            // Bounded, so that a broken cycle check fails the test instead of overflowing.
            if let entry = shared.current, r.context?.stack.count ?? 0 < 6 {
                _ = try Self.resolveOnFastPath(entry, via: r)
            }
            return Shared()
        }
        shared.withLock { $0 = try? container.plainEntry(of: Shared.self) }
        container.register(Top.self, lifetime: .unique) { r in
            _ = try Self.resolveOnFastPath(try #require(shared.current), via: r)
            return Top()
        }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Top.self) }
        #expect(error.kind.caseName == "circularDependency")
        #expect(error.pathDescriptions == ["Top", "Shared", "Shared"])
    }

    @Test func aTopLevelGraphRequestDeclinesTheFastPath() throws {
        let container = Container(name: "app")
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        let shared = try container.plainEntry(of: Shared.self)
        let value = try FastConstruction.construct(shared, from: container, on: ThreadState.currentUnmanaged)
        #expect(value == nil)
        #expect(ThreadState.current.pendingEntry == nil && ThreadState.current.context == nil)
    }
}
