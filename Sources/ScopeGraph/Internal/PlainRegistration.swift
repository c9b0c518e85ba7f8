import Synchronization

// A `unique` registration made by the inlined `register` is kept as a record in its
// container's table (`Container.Registered` with a `plainFunction`), without an `Entry`.
//
// Most `unique` registrations are resolved a few times and never get a block or a forwarded
// type; an `Entry` per registration (an allocation, its reference counts, its `deinit`) would
// cost more than registering, resolving and dropping them does otherwise (benchmark F). So the
// container turns the record into an `Entry` (`Container.materialize`) the moment anything
// needs one: a second lookup (to memoize it), a lookup through a walk or an override scope,
// `implements`, `onResolved` or `remove` through its handle, a description, a validation.
// Until then, only its first lookup, on the inlined resolve path, builds from the record
// directly (`Container.beginPlainConstruction`).
//
// The record and the entry it becomes share one identity, the one cycles are detected by
// (`Container.Registered.plainIdentity`): a factory building from the record that asks for its
// own key again finds the entry, and the cycle is reported at once, with its exact path.

/// A factory `@Sendable (Resolver) throws -> T` as its two words (function and context), so
/// that a table of records of different `T` can hold it without boxing. `FactoryBox<T>`
/// converts both ways: a stored closure of a generic struct has the same layout in every
/// specialization (the unspecialized one), so the words mean the same wherever they are read.
@usableFromInline
struct PlainFactory: @unchecked Sendable {
    // @unchecked: the words come from a `@Sendable` closure.
    @usableFromInline let function: UnsafeRawPointer
    /// The closure's context (captured values), retained; `nil` for a closure that captures
    /// nothing.
    @usableFromInline let context: AnyObject?

    @inlinable
    init(function: UnsafeRawPointer, context: AnyObject?) {
        self.function = function
        self.context = context
    }
}

/// The typed view of a `PlainFactory`.
@usableFromInline
struct FactoryBox<T> {
    @usableFromInline let body: @Sendable (Resolver) throws -> T

    @inlinable
    init(_ body: @escaping @Sendable (Resolver) throws -> T) { self.body = body }

    /// The factory of `words`, which a `FactoryBox<T>` of the same `T` made.
    @inlinable
    init(_ words: PlainFactory) { self = unsafeBitCast(words, to: FactoryBox<T>.self) }

    /// The factory as two words (the context retained by the copy).
    @inlinable
    var words: PlainFactory { unsafeBitCast(self, to: PlainFactory.self) }
}

extension Container {
    /// Stores a `unique` registration of this container under its own key as a record (what
    /// the inlined `register` does); returns its sequence and this container's owner link,
    /// unretained, for the handle.
    @usableFromInline
    func storePlain(_ key: Key, factory: PlainFactory) -> (sequence: Int, owner: Unmanaged<OwnerLink>) {
        let sequence = Self.nextSequence()
        store(Registered(plain: factory, sequence: sequence), under: key)
        return (sequence, unretainedOwnerLink)
    }

    /// The entry of the registration stored under `key` with `sequence`, made from its record
    /// if it is still one; `nil` when that registration is no longer here (removed or
    /// replaced).
    func materializedEntry(_ key: Key, sequence: Int) -> AnyEntry? {
        withState { state in
            guard let index = state.registrations.index(forKey: key),
                state.registrations.values[index].sequence == sequence
            else { return nil }
            return materialize(at: index, in: &state)
        }
    }

    /// The entry of the registration at `index`, made from its record (and stored in its
    /// place) if it is still one. Call with the lock held.
    func materialize(at index: [Key: Registered].Index, in state: inout State) -> AnyEntry {
        if let entry = state.registrations.values[index].entry { return entry }
        let record = state.registrations.values[index]
        let key = state.registrations.keys[index]
        // A record is stored under its own key, so the key's type is the `T` of its factory.
        let entry = Self.entryType(of: key.type).materialize(record, key: key, owner: self)
        state.registrations.values[index].become(entry)
        return entry
    }

    /// `Entry<T>.self` for `type`, `T.self` (a metadata lookup: made only when a record
    /// becomes an entry).
    private static func entryType(of type: Any.Type) -> AnyEntry.Type {
        func entryType<T>(_: T.Type) -> AnyEntry.Type { Entry<T>.self }
        return entryType(type)
    }

    /// The entry registered here under `key`, if any (made from its record if needed). Call
    /// with the lock held.
    func ownEntry(_ key: Key, in state: inout State) -> AnyEntry? {
        guard let index = state.registrations.index(forKey: key) else { return nil }
        return materialize(at: index, in: &state)
    }

    /// Counts blocks added to (or restored on) entries made from records. A construction from
    /// a record compares it with its value when the resolve started, so that a block added
    /// while the factory runs (by the factory itself, or on another thread before the
    /// construction ends) runs for that instance, at the price of one load per construction.
    static let recordBlocks = Atomic<Int>(0)

    /// The next registration sequence: process-wide, so that a record's sequence is also its
    /// identity (see `Registered.plainIdentity`).
    static func nextSequence() -> Int { sequences.wrappingAdd(1, ordering: .relaxed).oldValue }

    private static let sequences = Atomic<Int>(0)
}
