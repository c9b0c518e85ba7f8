@_exported import ScopeGraph
