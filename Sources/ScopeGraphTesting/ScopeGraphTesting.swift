// ScopeGraphTesting: test support for ScopeGraph.
//
// - `Container.snapshot()` / `Container.restore(_:)`: put a container back as it was.
// - `Container.withOverrides(_:operation:)`: task-local overrides with caches of their own.
// - `.overrides(_:_:)` and `.container(_:)`: Swift Testing traits for tests and suites.
//
// Importing this module also imports ScopeGraph.
@_exported import ScopeGraph
