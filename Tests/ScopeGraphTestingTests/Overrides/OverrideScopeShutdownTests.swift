import ScopeGraph
import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

/// An instance with an identity whose `onShutdown` hooks the suite records.
private final class Resource: Sendable {
    let label: String
    let dependencies: [Resource]
    init(_ label: String, _ dependencies: [Resource] = []) {
        self.label = label
        self.dependencies = dependencies
    }
}

/// The instances whose hooks ran, in order (held, so identities stay unique).
private final class HookLog: Sendable {
    private let entries = Locked<[Resource]>([])
    func record(_ resource: Resource) { entries.withLock { $0.append(resource) } }
    var resources: [Resource] { entries.withLock { $0 } }
    var labels: [String] { resources.map(\.label) }
    func count(of resource: Resource) -> Int { resources.filter { $0 === resource }.count }
}

/// A weak reference checked later.
private struct Watched: @unchecked Sendable {
    // @unchecked: a weak reference to a `Sendable` class instance; only loaded.
    weak var object: Resource?
    init(_ object: Resource?) { self.object = object }
    var isFreed: Bool { object == nil }
}

/// What the override scope's hook failed with.
private struct HookFailure: Error, Equatable {}

/// What an operation throws on purpose.
private struct OperationFailure: Error, Equatable {}

/// An async override scope shuts down the instances it cached when it ends (not the
/// container's); a hook failure there is recorded as an issue of the running test; `restore`
/// releases instances, which then are not shut down.
@Suite struct OverrideScopeShutdownTests {
    /// A container with a singleton `leaf`, a singleton `top` built from it and a
    /// `perContainer` `scoped`, all with hooks that record into `log`.
    private static func container(log: HookLog) -> Container {
        let container = Container(name: "app")
        container.register(Resource.self, tag: "leaf", lifetime: .singleton) { _ in Resource("leaf") }
            .onShutdown { log.record($0) }
        container.register(Resource.self, tag: "top", lifetime: .singleton) { r in
            Resource("top", [try r.resolve(tag: "leaf")])
        }
        .onShutdown { log.record($0) }
        container.register(Resource.self, tag: "scoped", lifetime: .perContainer) { _ in Resource("scoped") }
            .onShutdown { log.record($0) }
        return container
    }

    @Test func anAsyncOverrideScopeShutsDownTheInstancesItCachedWhenItEnds() async throws {
        _ = try await withAsyncWatchdog {
            let log = HookLog()
            let container = Self.container(log: log)
            let containerTop = try container.resolve(Resource.self, tag: "top")

            let scoped = try await container.withOverrides { _ in
            } operation: { () async throws -> [Resource] in
                let top = try container.resolve(Resource.self, tag: "top")
                let scoped = try await container.resolveAsync(Resource.self, tag: "scoped")
                #expect(top !== containerTop, "cached in the scope, not taken from the container")
                #expect(log.resources.isEmpty, "no hook runs before the scope ends")
                return [scoped, top, top.dependencies[0]]
            }

            #expect(log.labels == ["scoped", "top", "leaf"], "the scope's instances, newest first")
            #expect(scoped.allSatisfy { log.count(of: $0) == 1 })
            #expect(log.count(of: containerTop) == 0, "the container's instances are the container's to shut down")

            try await container.shutdown()

            #expect(log.count(of: containerTop) == 1 && log.count(of: containerTop.dependencies[0]) == 1)
            #expect(scoped.allSatisfy { log.count(of: $0) == 1 }, "a scope's instance is not shut down again")
        }
    }

    @Test func anOverridesOwnHooksRunWhenTheScopeEnds() async throws {
        _ = try await withAsyncWatchdog {
            let log = HookLog()
            let container = Self.container(log: log)

            let fake = try await container.withOverrides {
                $0.register(Resource.self, tag: "leaf", lifetime: .singleton) { _ in Resource("fake leaf") }
                    .onShutdown { log.record($0) }
            } operation: { () async throws -> Resource in
                try container.resolve(Resource.self, tag: "top").dependencies[0]
            }

            #expect(fake.label == "fake leaf")
            #expect(log.labels == ["top", "fake leaf"])
            #expect(log.count(of: fake) == 1)
        }
    }

    @Test func theScopesInstancesAreShutDownAndThenFreedWhenItEnds() async throws {
        _ = try await withAsyncWatchdog {
            let hooks = Counter()
            let container = Container(name: "app")
            container.register(Resource.self, lifetime: .singleton) { _ in Resource("singleton") }
                .onShutdown { _ in hooks.increment() }
            container.register(Resource.self, tag: "scoped", lifetime: .perContainer) { _ in Resource("scoped") }
                .onShutdown { _ in hooks.increment() }

            let watched = try await container.withOverrides { _ in
            } operation: { () async throws -> [Watched] in
                [
                    Watched(try container.resolve(Resource.self)),
                    Watched(try container.resolve(Resource.self, tag: "scoped")),
                ]
            }

            #expect(hooks.value == 2)
            #expect(watched.allSatisfy { $0.isFreed }, "an override scope's instance outlived the scope")
        }
    }

    @Test func aHookFailureInAnOverrideScopeIsRecordedAsATestIssue() async throws {
        _ = try await withAsyncWatchdog {
            let log = HookLog()
            let container = Self.container(log: log)
            let result = Locked<String?>(nil)

            try await withKnownIssue {
                let label = try await container.withOverrides {
                    $0.register(Resource.self, tag: "leaf", lifetime: .singleton) { _ in Resource("failing leaf") }
                        .onShutdown { _ in throw HookFailure() }
                } operation: { () async throws -> String in
                    try container.resolve(Resource.self, tag: "top").label
                }
                result.withLock { $0 = label }
            } matching: { issue in
                issue.comments.contains { $0.rawValue.contains("HookFailure") }
            }

            #expect(result.withLock { $0 } == "top", "withOverrides returned the operation's result")
            #expect(log.labels == ["top"], "the other hooks ran")
        }
    }

    @Test func aHookFailureIsRecordedAndTheOperationsOwnErrorIsRethrown() async throws {
        _ = try await withAsyncWatchdog {
            let log = HookLog()
            let container = Self.container(log: log)
            let caught = Locked<(any Error)?>(nil)

            await withKnownIssue {
                do {
                    try await container.withOverrides {
                        $0.register(Resource.self, tag: "leaf", lifetime: .singleton) { _ in Resource("failing leaf") }
                            .onShutdown { _ in throw HookFailure() }
                    } operation: { () async throws in
                        _ = try container.resolve(Resource.self, tag: "top")
                        throw OperationFailure()
                    }
                } catch {
                    caught.withLock { $0 = error }
                }
            } matching: { issue in
                issue.comments.contains { $0.rawValue.contains("HookFailure") }
            }

            #expect((caught.withLock { $0 } as? OperationFailure) == OperationFailure())
            #expect(log.labels == ["top"])
        }
    }

    @Test func parallelOverrideScopesEachShutDownTheirOwnInstancesOnce() async throws {
        _ = try await withAsyncWatchdog {
            let log = HookLog()
            let container = Self.container(log: log)

            let tops = try await withThrowingTaskGroup(of: Resource.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await container.withOverrides { _ in
                        } operation: { () async throws -> Resource in
                            let top = try container.resolve(Resource.self, tag: "top")
                            await Task.yield()
                            #expect(try container.resolve(Resource.self, tag: "top") === top)
                            return top
                        }
                    }
                }
                return try await group.reduce(into: [Resource]()) { $0.append($1) }
            }

            #expect(Set(tops.map(ObjectIdentifier.init)).count == 16)
            #expect(tops.allSatisfy { log.count(of: $0) == 1 && log.count(of: $0.dependencies[0]) == 1 })
            #expect(log.resources.count == 32)
        }
    }

    @Test func restoringASnapshotReleasesInstancesWhichAreThenNotShutDown() async throws {
        _ = try await withAsyncWatchdog {
            let log = HookLog()
            let container = Self.container(log: log)
            let child = container.makeChild(name: "child")
            let snapshot = container.snapshot()
            let childSnapshot = child.snapshot()
            let watched = [
                Watched(try container.resolve(Resource.self, tag: "top")),
                Watched(try container.resolve(Resource.self, tag: "scoped")),
                Watched(try child.resolve(Resource.self, tag: "scoped")),
            ]

            container.restore(snapshot)
            child.restore(childSnapshot)

            #expect(watched.allSatisfy { $0.isFreed }, "a restored container kept an instance alive for its hook")
            let rebuilt = try container.resolve(Resource.self, tag: "leaf")
            try await container.shutdown()
            #expect(log.resources.count == 1 && log.count(of: rebuilt) == 1, "only the instance built after restore")
        }
    }
}
