// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "ScopeGraph",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "ScopeGraph", targets: ["ScopeGraph"]),
        .library(name: "ScopeGraphTesting", targets: ["ScopeGraphTesting"]),
        .executable(name: "scopegraph-demo", targets: ["scopegraph-demo"]),
        .executable(name: "scopegraph-bench", targets: ["scopegraph-bench"]),
    ],
    targets: [
        .target(name: "ScopeGraph"),
        .target(name: "ScopeGraphTesting", dependencies: ["ScopeGraph"]),
        .executableTarget(name: "scopegraph-demo", dependencies: ["ScopeGraph"]),
        .executableTarget(name: "scopegraph-bench", dependencies: ["ScopeGraph", "ScopeGraphTesting"]),
        .testTarget(name: "ScopeGraphTests", dependencies: ["ScopeGraph"]),
        .testTarget(name: "ScopeGraphTestingTests", dependencies: ["ScopeGraph", "ScopeGraphTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
