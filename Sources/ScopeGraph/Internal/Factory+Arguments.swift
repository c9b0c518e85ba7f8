extension Factory {
    /// A factory taking runtime arguments, from a closure over a parameter pack: unpacks the
    /// erased arguments of a resolve into the closure's parameters. The key of such a
    /// registration is `Key(T.self, tag: tag, arguments: Key.argumentTypes(repeat (each A).self))`.
    package static func unpacking<each A>(
        _ factory: @escaping @Sendable (Resolver, repeat each A) throws -> T
    ) -> Factory<T> {
        .withArguments { resolver, arguments in
            let tuple = arguments.tuple as! (repeat each A)
            return try factory(resolver, repeat each tuple)
        }
    }
}
