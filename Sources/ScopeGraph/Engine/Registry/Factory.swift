/// How a registration builds its instance: the closure given to `register`, stored as it is
/// (no reinterpretation of its layout), with or without runtime arguments.
package enum Factory<T>: Sendable {
    /// A factory without runtime arguments.
    case plain(@Sendable (Resolver) throws -> T)
    /// A factory taking runtime arguments, packed as a tuple (see `unpacking`).
    case withArguments(@Sendable (Resolver, Arguments) throws -> T)

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
