import Dispatch
import ScopeGraphTestSupport
import ScopeGraphTesting
import Testing

@Suite struct ParallelOverrideTests {
    /// What one task saw inside its scope.
    struct Sighting: Sendable, Equatable {
        var first: String
        var afterSuspending: String
        var inChildTask: String
        var sameProfileThroughout: Bool
    }

    @Test func sixtyFourTasksEachSeeOnlyTheirOwnOverrideOfOneSharedContainer() async throws {
        let fixture = ProfileFixture(name: "shared")
        let descriptionBefore = fixture.container.description
        let taskCount = 64
        // Every task enters its scope before any resolves, so all 64 scopes are active at once.
        let sightings = try await resultsOfTasksThatMeet(taskCount) { index, gate in
            let mine = "fake \(index)"
            return try await fixture.container.withOverrides({
                $0.register((any API).self) { _ in FakeAPI(mine) }
            }) {
                await gate.arrive()
                let first = try fixture.container.resolve(Profile.self)
                await Task.yield()
                let again = try fixture.container.resolve(Profile.self)
                let inChild = try await Task { try fixture.container.resolve(Profile.self) }.value
                return Sighting(
                    first: first.api.name, afterSuspending: again.api.name, inChildTask: inChild.api.name,
                    sameProfileThroughout: first === again && again === inChild)
            }
        }

        let seen = try #require(sightings)
        #expect(seen.count == taskCount)
        for (index, sighting) in seen {
            let mine = "fake \(index)"
            #expect(
                sighting == Sighting(first: mine, afterSuspending: mine, inChildTask: mine, sameProfileThroughout: true)
            )
        }
        // One Profile per scope, none in the container; the real API was never needed.
        #expect(fixture.profileBuilds.value == taskCount)
        #expect(fixture.apiBuilds.value == 0)
        #expect(fixture.container.description == descriptionBefore)

        let afterwards = try fixture.container.resolve(Profile.self)
        #expect(afterwards.api.name == "real")
        #expect(fixture.profileBuilds.value == taskCount + 1, "the container had no Profile cached")
        #expect(fixture.apiBuilds.value == 1)
    }

    @Test func scopedAndUnscopedResolvesRunningTogetherDoNotMix() async throws {
        let fixture = ProfileFixture(name: "shared")
        let pairs = 32

        let results = try await withAsyncWatchdog {
            try await withThrowingTaskGroup(of: (index: Int, profile: Profile).self) { group in
                for index in 0..<pairs {
                    group.addTask {
                        try await fixture.container.withOverrides({
                            $0.register((any API).self) { _ in FakeAPI("fake \(index)") }
                        }) {
                            await Task.yield()
                            return (index, try fixture.container.resolve(Profile.self))
                        }
                    }
                    group.addTask {
                        await Task.yield()
                        return (-1, try fixture.container.resolve(Profile.self))
                    }
                }
                var results: [(index: Int, profile: Profile)] = []
                for try await result in group { results.append(result) }
                return results
            }
        }

        let all = try #require(results)
        let unscoped = all.filter { $0.index < 0 }.map(\.profile)
        let scoped = all.filter { $0.index >= 0 }
        #expect(unscoped.count == pairs && scoped.count == pairs)
        let real = try #require(unscoped.first)
        #expect(real.api.name == "real")
        #expect(unscoped.allSatisfy { $0 === real }, "every unscoped resolve shares the container's singleton")
        for (index, profile) in scoped { #expect(profile.api.name == "fake \(index)") }
        #expect(fixture.apiBuilds.value == 1)
        #expect(fixture.profileBuilds.value == pairs + 1)
    }

    @Test func threadsEachWithASynchronousScopeSeeOnlyTheirOwnOverride() {
        let fixture = ProfileFixture(name: "shared")
        let threadCount = 16
        let seen = Locked<[Int: String]>([:])
        let done = DispatchGroup()
        for index in 0..<threadCount {
            DispatchQueue.global().async(group: done) {
                let name = fixture.container.withOverrides({
                    $0.register((any API).self) { _ in FakeAPI("fake \(index)") }
                }) {
                    (try? fixture.container.resolve(Profile.self))?.api.name
                }
                seen.withLock { $0[index] = name ?? "failed" }
            }
        }
        guard done.wait(timeout: .now() + 30) == .success else {
            Issue.record("timed out after 30 s")
            return
        }
        let names = seen.withLock { $0 }
        #expect(names.count == threadCount)
        for (index, name) in names { #expect(name == "fake \(index)") }
        #expect(fixture.apiBuilds.value == 0)
        #expect(fixture.profileBuilds.value == threadCount)
    }
}
