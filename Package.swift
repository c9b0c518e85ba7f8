// swift-tools-version: 6.2
// 6.2 is the floor the sources need: `weak let` and `Task.immediate` (Swift 6.2), and the
// `.defaultIsolation` setting below.
import PackageDescription

let package = Package(
    name: "ScopeGraph",
    // Synchronization's Atomic and Mutex (the lock-free cached read, the per-slot state) need
    // these; Linux has no minimum.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "ScopeGraph", targets: ["ScopeGraph"]),
        .library(name: "ScopeGraphTesting", targets: ["ScopeGraphTesting"]),
        .executable(name: "scopegraph-demo", targets: ["scopegraph-demo"]),
        .executable(name: "scopegraph-bench", targets: ["scopegraph-bench"]),
        .executable(name: "scopegraph-server", targets: ["scopegraph-server"]),
    ],
    targets: [
        .target(name: "ScopeGraph"),
        .target(name: "ScopeGraphTesting", dependencies: ["ScopeGraph"]),
        .executableTarget(name: "scopegraph-demo", dependencies: ["ScopeGraph"]),
        .executableTarget(name: "scopegraph-bench", dependencies: ["ScopeGraph", "ScopeGraphTesting"]),
        .executableTarget(name: "scopegraph-server", dependencies: ["ScopeGraph"]),
        // What the test targets share (Tests/README.md): work on threads and in tasks under a
        // watchdog, rounds with a report of the failed ones, recorders and service fixtures.
        .target(name: "ScopeGraphTestSupport", dependencies: ["ScopeGraph"], path: "Tests/ScopeGraphTestSupport"),
        .testTarget(name: "ScopeGraphTests", dependencies: ["ScopeGraph", "ScopeGraphTestSupport"]),
        .testTarget(
            name: "ScopeGraphTestingTests",
            dependencies: ["ScopeGraph", "ScopeGraphTesting", "ScopeGraphTestSupport"]),
        // An app-like module with default main-actor isolation, as new Xcode app targets have.
        .testTarget(
            name: "ScopeGraphMainActorTests", dependencies: ["ScopeGraph"],
            swiftSettings: [.defaultIsolation(MainActor.self)]),
    ],
    swiftLanguageModes: [.v6]
)
