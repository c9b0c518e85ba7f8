/// How a registration builds its instance: the closure given to `register`, stored as it is
/// (no reinterpretation of its layout), with or without runtime arguments.
package enum Factory<T>: Sendable {
    /// A factory without runtime arguments.
    case plain(@Sendable (Resolver) throws -> T)
    /// A factory taking runtime arguments, packed as a tuple (see `unpacking`).
    case withArguments(@Sendable (Resolver, Arguments) throws -> T)
    /// An async factory; the arguments are `nil` for a resolve without runtime arguments.
    case async(@Sendable (Resolver, Arguments?) async throws -> T)
    /// A synchronous factory isolated to the main actor; arguments as for `async`.
    case mainActor(@MainActor @Sendable (Resolver, Arguments?) throws -> T)

    /// Which kind of factory this is.
    var kind: FactoryKind {
        switch self {
        case .plain, .withArguments: .sync
        case .async: .async
        case .mainActor: .mainActor
        }
    }

    /// A factory taking runtime arguments, from a closure over a parameter pack: unpacks the
    /// erased arguments of a resolve into the closure's parameters. The key of such a
    /// registration is `Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))`.
    package static func unpacking<each A>(
        _ factory: @escaping @Sendable (Resolver, repeat each A) throws -> T
    ) -> Factory<T> {
        .withArguments { resolver, arguments in
            // Checked: the key's argument types are these, so the lookup only brings here
            // arguments of exactly this tuple type.
            let tuple = arguments.tuple as! (repeat each A)
            return try factory(resolver, repeat each tuple)
        }
    }
}

/// The kinds of factory a registration can have, which decide how a resolve may run it.
enum FactoryKind: Sendable {
    /// Runs inline in any resolve.
    case sync
    /// Runs only in an async resolve (`resolveAsync`), awaited.
    case async
    /// Runs on the main actor: inline in a synchronous resolve made on the main actor, after a
    /// hop in an async one.
    case mainActor
}

extension Factory {
    /// An async factory from a closure without runtime arguments.
    package static func async(_ factory: @escaping @Sendable (Resolver) async throws -> T) -> Factory<T> {
        .async { resolver, _ in try await factory(resolver) }
    }

    /// An async factory from a closure over a parameter pack (see `unpacking`).
    package static func asyncUnpacking<each A>(
        _ factory: @escaping @Sendable (Resolver, repeat each A) async throws -> T
    ) -> Factory<T> {
        .async { resolver, arguments in
            let tuple = (arguments ?? Arguments()).unpacked(as: repeat (each A).self)
            return try await factory(resolver, repeat each tuple)
        }
    }

    /// A main-actor factory from a closure without runtime arguments.
    package static func mainActor(_ factory: @escaping @MainActor @Sendable (Resolver) throws -> T) -> Factory<T> {
        .mainActor { resolver, _ in try factory(resolver) }
    }

    /// A main-actor factory from a closure over a parameter pack (see `unpacking`).
    package static func mainActorUnpacking<each A>(
        _ factory: @escaping @MainActor @Sendable (Resolver, repeat each A) throws -> T
    ) -> Factory<T> {
        .mainActor { resolver, arguments in
            let tuple = (arguments ?? Arguments()).unpacked(as: repeat (each A).self)
            return try factory(resolver, repeat each tuple)
        }
    }
}

extension Arguments {
    /// The arguments as the parameter pack `A`, for a factory registered with runtime
    /// arguments; `nil` arguments are an empty pack.
    func unpacked<each A>(as types: repeat (each A).Type) -> (repeat each A) {
        // Checked: the key's argument types are these, so the lookup only brings here
        // arguments of exactly this tuple type.
        tuple as! (repeat each A)
    }
}
