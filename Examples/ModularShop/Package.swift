// swift-tools-version: 6.2
import PackageDescription

// A modular shop composed with ScopeGraph: one Swift module per feature, each importing only
// `ShopInterfaces` and `ScopeGraph`; `ShopComposition` is the composition root, the one module
// that imports every feature; `ShopApp` is a thin executable around it.

let scopeGraph: Target.Dependency = .product(name: "ScopeGraph", package: "ScopeGraph")
let scopeGraphTesting: Target.Dependency = .product(name: "ScopeGraphTesting", package: "ScopeGraph")

let package = Package(
    name: "ModularShop",
    // ScopeGraph's own floor (the `Synchronization` module); Linux has no minimum.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "ShopApp", targets: ["ShopApp"])
    ],
    dependencies: [
        // The repository's root. `name:` makes the package's identity "ScopeGraph" whatever the
        // directory of the clone is called (a path dependency is otherwise named after it).
        .package(name: "ScopeGraph", path: "../..")
    ],
    targets: [
        // What the features expose to each other: protocols and values, no ScopeGraph.
        .target(name: "ShopInterfaces"),
        // The features: each imports only ShopInterfaces and ScopeGraph.
        .target(name: "Catalog", dependencies: ["ShopInterfaces", scopeGraph]),
        .target(name: "Cart", dependencies: ["ShopInterfaces", scopeGraph]),
        .target(name: "Checkout", dependencies: ["ShopInterfaces", scopeGraph]),
        // The composition root: the only module that imports every feature.
        .target(
            name: "ShopComposition",
            dependencies: ["ShopInterfaces", "Catalog", "Cart", "Checkout", scopeGraph]
        ),
        .executableTarget(name: "ShopApp", dependencies: ["ShopComposition", scopeGraph]),
        // One test target per feature, depending on that feature only: the others are faked.
        .testTarget(name: "CatalogTests", dependencies: ["Catalog", "ShopInterfaces", scopeGraphTesting]),
        .testTarget(name: "CartTests", dependencies: ["Cart", "ShopInterfaces", scopeGraphTesting]),
        .testTarget(name: "CheckoutTests", dependencies: ["Checkout", "ShopInterfaces", scopeGraphTesting]),
        // The composed app's tests: the real features together (the modules, for a broken tree).
        .testTarget(
            name: "ShopCompositionTests",
            dependencies: ["ShopComposition", "ShopInterfaces", "Catalog", "Cart", "Checkout", scopeGraphTesting]
        ),
    ],
    swiftLanguageModes: [.v6]
)
