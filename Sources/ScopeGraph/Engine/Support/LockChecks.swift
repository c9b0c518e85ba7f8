#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The pthread calls of the engine's locks (`Locked`, `ConditionLock`), every return code
/// checked. Debug builds add two checks:
/// - the mutexes are error-checking (as swift-nio's `NIOLock` makes them), so a thread that
///   takes a lock it already holds stops with a message instead of hanging;
/// - each thread counts the engine locks it holds, and `Container.deinit` asserts that the
///   count is zero: a container freed under a lock releases instances whose deinits may
///   resolve, which would take a lock again (what a critical section lets go of is released
///   after unlocking: `DeferredReleases`, `AnySlot.logOwner(keepingIn:)`).
enum LockChecks {
    static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        #if DEBUG
        var attributes = pthread_mutexattr_t()
        checkPthread(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        checkPthread(
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)), "pthread_mutexattr_settype")
        checkPthread(pthread_mutex_init(mutex, &attributes), "pthread_mutex_init")
        checkPthread(pthread_mutexattr_destroy(&attributes), "pthread_mutexattr_destroy")
        #else
        checkPthread(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
        #endif
    }

    static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let result = pthread_mutex_lock(mutex)
        if result == EDEADLK {
            preconditionFailure(
                "ScopeGraph: a thread took an engine lock it already holds (code ran under the lock that takes it again: a factory, a block or a deinit; release what the critical section lets go of after unlocking)"
            )
        }
        checkPthread(result, "pthread_mutex_lock")
        #if DEBUG
        heldByThisThread += 1
        #endif
    }

    static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        #if DEBUG
        heldByThisThread -= 1
        #endif
        checkPthread(pthread_mutex_unlock(mutex), "pthread_mutex_unlock")
    }

    #if DEBUG
    private static let held = ThreadLocalCount()
    private static let coordinatorLocks = ThreadLocalCount()

    /// How many engine locks the current thread holds.
    static var heldByThisThread: Int {
        get { held.value }
        set { held.value = newValue }
    }

    /// How many times the current thread has taken the coordinator's lock
    /// (`BuildCoordinator.withLock`): tests check that uncontended work never does.
    static var coordinatorLocksTakenByThisThread: Int {
        get { coordinatorLocks.value }
        set { coordinatorLocks.value = newValue }
    }
    #endif
}

/// Stops the program when a pthread call fails: a failing lock operation is a broken
/// invariant (a lock used after it was destroyed, or unlocked by another thread), never
/// something to carry on from.
func checkPthread(_ result: Int32, _ call: StaticString) {
    precondition(result == 0, "ScopeGraph: \(call) failed with error \(result)")
}

#if DEBUG
/// A count per thread, stored as the bits of a pthread key's value (no allocation).
struct ThreadLocalCount: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        checkPthread(pthread_key_create(&key, nil), "pthread_key_create")
        self.key = key
    }

    /// The current thread's count.
    var value: Int {
        get { Int(bitPattern: pthread_getspecific(key)) }
        nonmutating set {
            checkPthread(pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)), "pthread_setspecific")
        }
    }
}
#endif
