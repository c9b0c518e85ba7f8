extension Container {
    /// Creates a root container and runs a configuration block on it: the registrations read
    /// as part of the container's creation.
    ///
    /// ```swift
    /// let app = Container(name: "app") { c in
    ///     c.register(Logger.self, lifetime: .singleton) { _ in ConsoleLogger() }
    ///     c.register(APIClient.self) { r in APIClient(logger: try r.resolve()) }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The container's name.
    ///   - configure: Registers services in the new container; runs once, before `init` returns.
    /// - Throws: Whatever `configure` throws.
    public convenience init(name: String = "root", configure: (Container) throws -> Void) rethrows {
        self.init(name: name)
        try configure(self)
    }

    /// Creates a child container and runs a configuration block on it.
    ///
    /// ```swift
    /// let checkout = app.makeChild(name: "checkout") { c in
    ///     c.register(Cart.self, lifetime: .perContainer) { _ in Cart() }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The child's name.
    ///   - configure: Registers services in the child; runs once, before this method returns.
    /// - Returns: The new child.
    /// - Throws: Whatever `configure` throws.
    public func makeChild(name: String, configure: (Container) throws -> Void) rethrows -> Container {
        let child = makeChild(name: name)
        try configure(child)
        return child
    }
}
