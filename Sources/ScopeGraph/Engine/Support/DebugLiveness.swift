import Synchronization

/// Debug builds' check of an unretained reference (`Request.start`,
/// `ThreadState.boundContext`): the referenced object's identity for its lifetime, cleared by
/// its deinit. The holder records the identity when it takes the reference and asserts it is
/// unchanged when it uses the reference. Through a dangling reference the read is itself a use
/// after free, which AddressSanitizer reports; without the sanitizer a freed object reads as
/// cleared, or, once its memory is reused, as another object's identity, and the assertion
/// fails either way.
///
/// Not a weak reference: that gives the object a side table, which LeakSanitizer reports as
/// leaked when the object outlives its last weak reference (the object's pointer to its side
/// table is encoded, so the scan does not find it).
struct DebugLiveness: ~Copyable, Sendable {
    private static let identities = Atomic<UInt64>(0)
    private let identity = Atomic<UInt64>(DebugLiveness.identities.add(1, ordering: .relaxed).newValue)

    /// The object's identity while it lives; 0 once its deinit began.
    var current: UInt64 { identity.load(ordering: .relaxed) }

    /// Called by the object's deinit.
    func end() { identity.store(0, ordering: .relaxed) }
}
