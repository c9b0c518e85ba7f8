import Dispatch
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// A hook added after its registration's instances were cached closes them too: `shutdown()`
/// runs the hooks of the instances cached in the container, whenever the hooks were added.
@Suite struct ShutdownLateHookTests {
    @Test func aHookAddedAfterInstancesWereCachedClosesThemNewestFirst() async throws {
        try await withShutdownRecorder(container: "root") { recorder, root in
            let first = root.registerShutdownProbe("first", recorder: nil)
            let second = root.registerShutdownProbe("second", recorder: nil)
            let handler = root.registerShutdownProbe("handler", lifetime: .perContainer, recorder: nil)
            let child = root.makeChild(name: "child")
            _ = try root.resolveProbe("second")
            _ = try root.resolveProbe("first")
            _ = try child.resolveProbe("handler")
            for registration in [first, second, handler] { registration.onShutdown { recorder.record($0) } }

            try await root.shutdown()

            #expect(recorder.labels == ["handler", "first", "second"])
        }
    }

    @Test func anInstanceRecordedBeforeAnotherHookWasAddedIsClosedOnceByEachHook() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            let later = ShutdownRecorder()
            let registration = container.registerShutdownProbe("pool", recorder: recorder)
            let pool = try container.resolveProbe("pool")
            registration.onShutdown { later.record($0) }

            try await container.shutdown()

            #expect(recorder.instances.count == 1 && recorder.count(of: pool) == 1)
            #expect(later.instances.count == 1 && later.count(of: pool) == 1)
        }
    }

    @Test func aHookAddedLaterClosesALiveWeakSingletonButNotOneThatDied() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            let live = container.registerShutdownProbe("live", lifetime: .weakSingleton, recorder: nil)
            let dead = container.registerShutdownProbe("dead", lifetime: .weakSingleton, recorder: nil)
            let held = try container.resolveProbe("live")
            _ = try container.resolveProbe("dead")  // not held: it dies here
            live.onShutdown { recorder.record($0) }
            dead.onShutdown { recorder.record($0) }

            try await container.shutdown()

            #expect(recorder.recorded(exactly: [held]), "\(recorder.labels)")
        }
    }

    @Test func aHookAddedLaterDoesNotCloseAnInstanceReleasedBefore() async throws {
        try await withShutdownRecorder(container: "app") { recorder, container in
            let registration = container.register(ShutdownProbe.self, lifetime: .singleton) { _ in
                ShutdownProbe("pool")
            }
            let released = WeakProbe(try container.resolve(ShutdownProbe.self))
            container.resetCachedInstances()
            registration.onShutdown { recorder.record($0) }

            try await container.shutdown()

            #expect(recorder.count == 0)
            #expect(released.isFreed)
        }
    }

    /// Threads build `perContainer` instances in many children while the hook is added: each
    /// instance, published before or after, is closed exactly once by the root's shutdown.
    @Test func aHookAddedWhileThreadsBuildInstancesClosesEachOfThemOnce() async throws {
        try await withAsyncWatchdog(seconds: 60) {
            for round in 0..<20 {
                let recorder = ShutdownRecorder()
                let root = Container(name: "root")
                let registration = root.register(ShutdownProbe.self, lifetime: .perContainer) { _ in
                    ShutdownProbe("handler")
                }
                let children = (0..<16).map { root.makeChild(name: "child-\($0)") }
                let built = Guarded<[ShutdownProbe]>([])
                let start = DispatchSemaphore(value: 0)
                let threads = children.map { child in
                    Task {
                        await runOnNewThread {
                            _ = start.wait(timeout: .now() + 10)
                            if let instance = try? child.resolve(ShutdownProbe.self) {
                                built.withLock { $0.append(instance) }
                            }
                        }
                    }
                }
                for _ in children { start.signal() }
                // Some instances are published before the hook, some race with it.
                _ = await waitUntil(atMost: 10) { built.current.count >= children.count / 2 }
                registration.onShutdown { recorder.record($0) }
                for thread in threads { await thread.value }

                try await root.shutdown()

                let instances = built.current
                #expect(instances.count == children.count, "round \(round)")
                #expect(recorder.count == instances.count, "round \(round): \(recorder.count) hook calls")
                for instance in instances where recorder.count(of: instance) != 1 {
                    Issue.record("round \(round): an instance closed \(recorder.count(of: instance)) times")
                }
            }
        }
    }
}
