import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// The contract's "Publication": a cached instance is published as soon as it is complete (its
/// factory returned, its own `onResolved` blocks ran, everything it was built from is
/// published), not when the whole top-level resolve ends. A failed resolve discards what failed
/// and what was built from an incomplete instance that failed; complete instances stay cached.
@Suite struct PublicationTests: ServiceFixtures {
    final class Failing: Sendable {}
    final class Top: Sendable {}
    final class Left: @unchecked Sendable {
        // @unchecked: set once by the block, before the pair is published. Weak: the pair
        // would otherwise keep itself alive.
        weak var right: Right?
    }
    final class Right: Sendable {
        let left: Left
        init(left: Left) { self.left = left }
    }

    /// A factory may hand work to another thread that needs a complete singleton this resolve
    /// built: the singleton is published when its factory returns, so the other thread reads it
    /// instead of waiting for the whole resolve (which waits for that thread: a deadlock).
    @Test func aCompleteSingletonIsVisibleToAnotherThreadWhileTheResolveThatBuiltItStillRuns() throws {
        let container = Container(name: "app")
        defer { container.removeAll() }  // a factory captures the container
        let runs = Counter()
        container.register(Shared.self, lifetime: .singleton, counting: runs) { Shared() }
        let seen = Guarded<Shared?>(nil)
        let otherThreadFinished = Guarded(false)
        container.register(Holder.self) { r in
            let shared = try r.resolve(Shared.self)
            let finished = runOnThreads(1, timeout: 10) { _ in
                seen.withLock { $0 = try? container.resolve(Shared.self) }
            }
            otherThreadFinished.withLock { $0 = finished }
            return Holder(shared: shared)
        }
        let holder = try container.resolve(Holder.self)
        #expect(otherThreadFinished.current, "the other thread waited for the resolve that waited for it")
        #expect(seen.current === holder.shared)
        #expect(runs.value == 1)
    }

    /// A singleton that was complete stays cached when a later sibling's factory throws, and
    /// `shutdown()` closes it, once.
    @Test func aCompleteSingletonIsKeptAfterALaterSiblingThrowsAndClosedOnceByShutdown() async throws {
        let container = Container(name: "app")
        let opened = Counter()
        let closed = Counter()
        container.register(Shared.self, lifetime: .singleton, counting: opened) { Shared() }.onShutdown { _ in
            closed.increment()
        }
        container.register(Failing.self) { _ in throw Boom("sibling") }
        container.register(Holder.self) { r in
            let shared = try r.resolve(Shared.self)
            _ = try r.resolve(Failing.self)
            return Holder(shared: shared)
        }
        let error = try #require(throws: ResolutionError.self) { _ = try container.resolve(Holder.self) }
        #expect(error.kind.underlyingError as? Boom == Boom("sibling"))
        _ = try container.resolve(Shared.self)
        #expect(opened.value == 1, "the Shared opened by the failed resolve was dropped")
        try await container.shutdown()
        #expect(closed.value == 1)
        try await container.shutdown()
        #expect(closed.value == 1)
    }

    /// A property-injection cycle is incomplete until its blocks have run: when a block throws,
    /// neither end is cached, and the next resolve builds both again, as one consistent pair.
    @Test func aPropertyInjectionCycleWhoseBlockThrowsCachesNeitherEnd() throws {
        let container = Container(name: "app")
        let leftRuns = Counter()
        let rightRuns = Counter()
        let attempts = Counter()
        container.register(Left.self, lifetime: .singleton, counting: leftRuns) { Left() }.onResolved { r, left in
            left.right = try r.resolve(Right.self)
            if attempts.increment() == 1 { throw Boom("block") }
        }
        container.register(Right.self, lifetime: .singleton) { r in
            rightRuns.increment()
            return Right(left: try r.resolve(Left.self))
        }
        #expect(throws: ResolutionError.self) { _ = try container.resolve(Right.self) }
        let right = try container.resolve(Right.self)
        #expect(leftRuns.value == 2)
        #expect(rightRuns.value == 2)
        #expect(right.left.right === right)
        #expect(try container.resolve(Left.self) === right.left)
    }

    /// An instance built from an incomplete one (a singleton with an `onResolved` block, which
    /// runs only once the outermost factory has returned) is published with it, at the end of
    /// the resolve: another thread that asks meanwhile waits, and then gets that instance.
    @Test func anInstanceBuiltFromAnIncompleteOneIsPublishedWithIt() throws {
        let container = Container(name: "app")
        defer { container.removeAll() }  // a factory captures the container
        let blockRan = Guarded(false)
        container.register(Config.self, lifetime: .singleton) { _ in Config() }
            .onResolved { _, _ in blockRan.withLock { $0 = true } }
        let serviceRegistration = container.register(Middle.self, lifetime: .singleton) { r in
            Middle(config: try r.resolve())
        }
        let other = Guarded<(service: Middle?, blockHadRun: Bool)?>(nil)
        let started = Guarded<StartedThread<Void>?>(nil)
        container.register(Top.self) { r in
            _ = try r.resolve(Middle.self)
            started.withLock {
                $0 = StartedThread {
                    let service = try? container.resolve(Middle.self)
                    other.withLock { $0 = (service, blockRan.current) }
                }
            }
            // The other thread waits for the service's build (the coordinator counts it): it has
            // not been published, so the thread cannot have read it.
            #expect(serviceRegistration.waitUntilSomeoneWaitsForItsBuild(), "the other thread did not wait")
            #expect(other.current == nil, "the other thread got the service before its config was complete")
            return Top()
        }
        _ = try container.resolve(Top.self)
        let thread = try #require(started.current)
        #expect(thread.wait(timeout: 10))
        let (service, blockHadRun) = try #require(other.current)
        #expect(service === (try container.resolve(Middle.self)))
        #expect(blockHadRun, "the service was published before its config's block ran")
    }

    /// The same through an async factory's child task: a dependency it reads there that is
    /// incomplete makes the factory's instance incomplete. Without the block, the instance is
    /// complete and a thread reads it while the resolve still runs.
    @Test(arguments: [true, false])
    func aChildTaskReadingAnIncompleteInstanceMakesTheFactorysInstanceIncomplete(configHasBlock: Bool) async throws {
        let container = Container(name: "app")
        defer { container.removeAll() }  // a factory captures the container
        let registration = container.register(Config.self, lifetime: .singleton) { _ in Config() }
        if configHasBlock { registration.onResolved { _, _ in } }
        container.register(Middle.self, lifetime: .singleton) { r in
            async let config = r.resolveAsync(Config.self)
            return Middle(config: try await config)
        }
        let seenWhileRunning = Guarded<Middle?>(nil)
        container.register(Top.self) { r in
            _ = try await r.resolveAsync(Middle.self)
            // A synchronous resolve on another thread reads a published instance, and throws
            // `.requiresAsync` for one an async resolve holds unpublished.
            let seen = await runOnNewThread { try? container.resolve(Middle.self) }
            seenWhileRunning.withLock { $0 = seen }
            return Top()
        }
        let finished = try await withAsyncWatchdog(seconds: 10) { () -> Bool in
            _ = try await container.resolveAsync(Top.self)
            return true
        }
        guard finished != nil else { return }
        let service = try container.resolve(Middle.self)
        if configHasBlock {
            #expect(seenWhileRunning.current == nil, "published while built from an incomplete config")
        } else {
            #expect(seenWhileRunning.current === service, "a complete service was not published at once")
        }
    }
}
