/// Resolves `T` when first read, then keeps it: a dependency that must not be built until it is
/// used.
///
/// Any registration of `T` makes `Lazy<T>` resolvable too, with the same tag; nothing needs
/// registering for it. The value is resolved from the container the request for the `Lazy`
/// started from, with the usual lifetimes and errors, once: later reads return the same
/// instance, whatever the lifetime (copies of a `Lazy` share it).
///
/// ```swift
/// container.register(ReportScreen.self) { r in ReportScreen(exporter: try r.resolve(Lazy<PDFExporter>.self)) }
/// // in ReportScreen, only when the user exports:
/// try exporter.value.export(report)
/// ```
///
/// Read while the resolve that made it still runs on the same thread (in an `onResolved`
/// block), it joins that resolve: a `graph` instance is the one that resolve shares. Read
/// after it, it starts a top-level resolve of its own. It holds its container weakly: read for
/// the first time after the container is deallocated, it throws `.notRegistered` saying so.
/// A read that fails caches nothing, so the next read tries again.
public struct Lazy<T>: Sendable {
    private let resolution: DeferredResolution
    private let storage = LazyStorage<T>()

    /// The instance: resolved by the first read, the same one afterwards.
    ///
    /// Two threads reading for the first time at once may both resolve (for a `unique` or
    /// `graph` registration, two instances are built); both get the one kept first.
    /// - Throws: `ResolutionError` (`.requiresAsync` when `T`'s graph needs an async resolve:
    ///   read it with ``valueAsync(isolation:)`` instead).
    public var value: T {
        get throws {
            if let stored = storage.value { return stored }
            return storage.keep(try resolution.resolve(as: T.self))
        }
    }

    /// The instance, resolved in an async resolve by the first read (for registrations with
    /// async or main-actor factories), the same one afterwards.
    /// - Parameter isolation: The caller's actor, where the instance is returned.
    /// - Returns: The instance.
    /// - Throws: `ResolutionError`, or `CancellationError`.
    public func valueAsync(isolation: isolated (any Actor)? = #isolation) async throws -> T {
        if let stored = storage.value { return stored }
        return storage.keep(try await resolution.resolveAsync(as: T.self, isolation: isolation))
    }

    /// True once a read has resolved the instance.
    public var isResolved: Bool { storage.value != nil }
}

extension Lazy: DeferredResolvable {
    static var resolvedType: Any.Type { T.self }
    static func make(_ resolution: DeferredResolution) -> Lazy<T> { Lazy(resolution: resolution) }
}

/// The instance a `Lazy` resolved, shared by its copies.
private final class LazyStorage<T>: Sendable {
    // The instance is handed between threads as every resolved instance is (the container
    // shares singletons across threads the same way); `Locked` orders the accesses.
    private let stored = Locked<Kept?>(nil)

    private struct Kept: @unchecked Sendable {
        // @unchecked: see `LazyStorage`; read and written only under `stored`'s lock.
        let value: T
    }

    var value: T? { stored.withLock { $0?.value } }

    /// Keeps `value` unless another read kept one first; returns the one kept.
    func keep(_ value: T) -> T {
        stored.withLock { kept in
            if let existing = kept { return existing.value }
            kept = Kept(value: value)
            return value
        }
    }
}
