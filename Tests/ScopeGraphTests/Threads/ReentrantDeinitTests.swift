import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// Instances whose `deinit` resolves, freed by the container at awkward moments: nothing that
/// ScopeGraph lets go of while it holds one of its locks may run such a `deinit` there (the
/// lock is taken again: a thread stuck for good). Each case ran into that before it was fixed;
/// a hang fails the test after 20 s.
@Suite struct ReentrantDeinitTests {
    final class Screen: @unchecked Sendable {
        // @unchecked: the wrapper is only configured before the threads start; its box is thread-safe.
        @LazyInjected var number: Int
    }

    /// Runs `body` on a thread of its own, bounded; true when it returned.
    private func returns(_ body: @escaping @Sendable () -> Void) -> Bool {
        runOnThreads(1, timeout: 20) { _ in body() }
    }

    /// Runs `body` on a thread of its own (bounded), and expects it to return and the deinit it
    /// caused to have done its work (`deinitWorked`).
    private func expectItReturnsAndTheDeinitWorked(
        _ deinitWorked: Guarded<Bool>, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable () -> Void
    ) {
        let finished = returns(body)
        #expect(finished, sourceLocation: sourceLocation)
        guard finished else { return }
        #expect(deinitWorked.current, sourceLocation: sourceLocation)
    }

    /// A container "app" with a singleton `Int` (42) and a `DeinitHook` of `lifetime` (with an
    /// empty `onResolved` block when `withABlock`) whose deinit resolves it: `resolvedInDeinit`
    /// is true once that deinit got 42. The hook's factory captures the container.
    private static func appWithAHookThatResolves(lifetime: Lifetime, withABlock: Bool = false) -> (
        container: Container, resolvedInDeinit: Guarded<Bool>
    ) {
        let container = Container(name: "app")
        let resolvedInDeinit = Guarded(false)
        container.register(Int.self, lifetime: .singleton) { _ in 42 }
        let hook = container.register(DeinitHook.self, lifetime: lifetime) { _ in
            DeinitHook { resolvedInDeinit.withLock { $0 = (try? container.resolve(Int.self)) == 42 } }
        }
        if withABlock { hook.onResolved { _, _ in } }
        return (container, resolvedInDeinit)
    }

    /// A `unique` instance with an `onResolved` block, dropped by the factory that asked for it:
    /// its last reference is the pending block, released when the blocks have run.
    @Test func anInstanceFreedWithItsPendingBlockMayResolve() {
        let (container, resolvedInDeinit) = Self.appWithAHookThatResolves(lifetime: .unique, withABlock: true)
        defer { container.removeAll() }  // the factories capture the container
        container.register(String.self, lifetime: .singleton, needing: DeinitHook.self) { "app" }
        expectItReturnsAndTheDeinitWorked(resolvedInDeinit) { _ = try? container.resolve(String.self) }
    }

    /// The same, where the deinit resolves a `graph` service that the finishing resolve also
    /// resolved: the blocks ran with that resolve bound to the thread, and it is unbound before
    /// the instance goes, so the deinit's resolve is one of its own and builds its own `graph`
    /// instance (joining the finished resolve, it got that resolve's). Both ways a resolve ends:
    /// alone (its cached build was uncontended) and through the coordinator (a singleton with
    /// an `onShutdown` hook is published under its lock).
    @Test(arguments: [false, true])
    func anInstanceFreedAfterItsBlocksRanResolvesInAResolveOfItsOwn(throughTheCoordinator: Bool) {
        final class Shared: Sendable {}
        final class Root: Sendable {
            let shared: Shared
            init(_ shared: Shared) { self.shared = shared }
        }
        let container = Container(name: "app")
        defer { container.removeAll() }  // the factories capture the container
        let fromDeinit = Guarded<Shared?>(nil)
        container.register(Shared.self, lifetime: .graph) { _ in Shared() }
        let int = container.register(Int.self, lifetime: .singleton) { _ in 42 }
        if throughTheCoordinator { int.onShutdown { _ in } }
        container.register(DeinitHook.self, lifetime: .unique) { _ in
            DeinitHook { fromDeinit.withLock { $0 = try? container.resolve(Shared.self) } }
        }.onResolved { _, _ in }
        container.register(Root.self, lifetime: .unique) { r in
            _ = try r.resolve(Int.self)  // a cached build
            let shared = try r.resolve(Shared.self)
            _ = try r.resolve(DeinitHook.self)
            return Root(shared)
        }
        let root = Guarded<Root?>(nil)
        let finished = returns { root.withLock { $0 = try? container.resolve(Root.self) } }
        #expect(finished)
        guard finished, let shared = root.current?.shared else { return }
        #expect(fromDeinit.current != nil)
        #expect(fromDeinit.current !== shared)
    }

    /// A request scope made and dropped inside a factory: when the build ends, the scope's slot
    /// is the last reference to its instance.
    @Test func aRequestScopeDroppedInsideAFactoryMayFreeAnInstanceThatResolves() {
        let (container, resolvedInDeinit) = Self.appWithAHookThatResolves(lifetime: .perContainer)
        defer { container.removeAll() }  // the factories capture the container
        container.register(String.self, lifetime: .unique) { _ in
            _ = try container.makeChild(name: "temporary").resolve(DeinitHook.self)
            return "done"
        }
        expectItReturnsAndTheDeinitWorked(resolvedInDeinit) { _ = try? container.resolve(String.self) }
    }

    /// A singleton of a collaborator whose owner lets it go while the singleton is built.
    @Test func aCollaboratorDroppedDuringABuildMayFreeAnInstanceThatResolves() {
        let container = Container(name: "app")
        let resolvedInDeinit = Guarded(false)
        let owner = Guarded<Container?>(nil)
        Self.linkCollaborator(to: container, owner: owner, resolvedInDeinit: resolvedInDeinit)
        container.register(Double.self, lifetime: .singleton) { _ in 1.5 }
        container.register(String.self, lifetime: .unique, needing: DeinitHook.self) { "done" }
        expectItReturnsAndTheDeinitWorked(resolvedInDeinit) { _ = try? container.resolve(String.self) }
        #expect(owner.current == nil)
    }

    @inline(never)
    private static func linkCollaborator(
        to container: Container, owner: Guarded<Container?>, resolvedInDeinit: Guarded<Bool>
    ) {
        let feature = Container(name: "feature")
        feature.register(DeinitHook.self, lifetime: .singleton) { _ in
            owner.withLock { $0 = nil }  // the owner's reference goes now
            return DeinitHook { resolvedInDeinit.withLock { $0 = (try? container.resolve(Double.self)) == 1.5 } }
        }
        container.collaborate(with: feature)
        owner.withLock { $0 = feature }
    }

    /// Rebinding a property wrapper drops its old container, which may be the last reference
    /// to it, and with it its singletons.
    @Test func rebindingAWrapperMayFreeAContainerWhoseInstanceReadsTheWrapper() {
        let screen = Screen()
        let readInDeinit = Guarded(false)
        Self.bindToTemporary(screen, readInDeinit: readInDeinit)
        expectItReturnsAndTheDeinitWorked(readInDeinit) { screen.$number.container = Container(name: "other") }
    }

    @inline(never)
    private static func bindToTemporary(_ screen: Screen, readInDeinit: Guarded<Bool>) {
        let temporary = Container(name: "temporary")
        temporary.register(DeinitHook.self, lifetime: .singleton) { _ in
            DeinitHook { readInDeinit.withLock { $0 = !screen.$number.isResolved } }
        }
        _ = try? temporary.resolve(DeinitHook.self)
        screen.$number.container = temporary
    }

    /// An error carrying a hook.
    struct HookError: Error {
        let hook: DeinitHook
    }

    struct Failure: Error {}

    /// The error of a failed cross-thread group, held only by the group once the member that
    /// threw it has gone (its caller dropped it): the last member to fail lets the group go,
    /// and the error with it. The group is set up by hand here; reaching this state with real
    /// threads takes a cycle across threads whose factories fail one after the other.
    @Test func aFailedGroupsErrorMayResolveWhenItsLastMemberFails() {
        let container = Container(name: "app")
        let resolvedInDeinit = Guarded(false)
        container.register(Int.self, lifetime: .singleton) { _ in 42 }
        let finished = returns {
            let last = Self.lastMemberOfFailedGroup(
                error: HookError(
                    hook: DeinitHook { resolvedInDeinit.withLock { $0 = (try? container.resolve(Int.self)) == 42 } }))
            BuildCoordinator.shared.fail(last, with: Failure())
        }
        #expect(finished)
        guard finished else { return }
        #expect(resolvedInDeinit.current)
    }

    /// A group of two failed with `error`, whose first member has gone: the member returned
    /// holds the only reference to the group.
    @inline(never)
    private static func lastMemberOfFailedGroup(error: any Error) -> ResolutionContext {
        let (gone, last) = (ResolutionContext(), ResolutionContext())
        let group = ResolutionGroup(gone)
        group.members.append(last)
        group.error = error
        last.group = group
        return last
    }
}
