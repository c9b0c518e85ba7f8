#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The naive service locator of the issue: a `[ObjectIdentifier: () -> Any]` dictionary behind
/// a pthread mutex, lazy singletons, nothing else. No scopes, no hierarchy, no cycle
/// detection, no diagnostics. Tagged keys (scenario F) live in a second dictionary keyed by
/// (type, tag), so untagged resolves hash only the `ObjectIdentifier`.
final class NaiveLocator: @unchecked Sendable {
    // @unchecked: both dictionaries are only read or written with `mutex` held; the factories
    // themselves are called outside it and are safe to call from any thread.
    private let mutex = NaiveMutex()
    private var factories: [ObjectIdentifier: () -> Any] = [:]
    private var taggedFactories: [TaggedKey: () -> Any] = [:]

    private struct TaggedKey: Hashable {
        let type: ObjectIdentifier
        let tag: String
    }

    func register<T>(_ type: T.Type, factory: @escaping () -> T) {
        mutex.lock()
        factories[ObjectIdentifier(type)] = factory
        mutex.unlock()
    }

    func register<T>(_ type: T.Type, tag: String, factory: @escaping () -> T) {
        mutex.lock()
        taggedFactories[TaggedKey(type: ObjectIdentifier(type), tag: tag)] = factory
        mutex.unlock()
    }

    /// A lazy singleton: built by the first resolve, under its own lock, then kept.
    func registerSingleton<T>(_ type: T.Type, factory: @escaping () -> T) {
        let instance = LazyInstance(factory)
        register(type) { instance.value }
    }

    func resolve<T>(_ type: T.Type = T.self) -> T {
        mutex.lock()
        let factory = factories[ObjectIdentifier(type)]
        mutex.unlock()
        guard let factory else { fatalError("NaiveLocator: \(type) is not registered") }
        return factory() as! T
    }

    func resolve<T>(_ type: T.Type = T.self, tag: String) -> T {
        mutex.lock()
        let factory = taggedFactories[TaggedKey(type: ObjectIdentifier(type), tag: tag)]
        mutex.unlock()
        guard let factory else { fatalError("NaiveLocator: \(type)[\(tag)] is not registered") }
        return factory() as! T
    }
}

/// A lazily built instance behind its own mutex.
private final class LazyInstance<T>: @unchecked Sendable {
    // @unchecked: `instance` is only read or written with `mutex` held.
    private let mutex = NaiveMutex()
    private let factory: () -> T
    private var instance: T?

    init(_ factory: @escaping () -> T) { self.factory = factory }

    var value: T {
        mutex.lock()
        defer { mutex.unlock() }
        if let instance { return instance }
        let made = factory()
        instance = made
        return made
    }
}

/// A plain pthread mutex.
final class NaiveMutex: @unchecked Sendable {
    // @unchecked: the mutex is heap-allocated, never moved, and only used through pthread calls.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }
}
