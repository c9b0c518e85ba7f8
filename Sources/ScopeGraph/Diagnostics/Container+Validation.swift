extension Container {
    /// Dry-runs every registration of this container and its descendants in a sandbox, and
    /// reports every problem found.
    ///
    /// Each registration is resolved as its own top-level resolve, from the container that
    /// owns it. Cached lifetimes are cached in the sandbox only: no container's cache is read
    /// or written, no registration changes, and the app's next resolve behaves as if
    /// validation never ran. Factories do run (that is how their dependencies are found), so
    /// keep side effects out of them or expect them to run once more.
    ///
    /// Errors (the app would throw): missing dependencies, with their path; circular
    /// dependencies; factories or `onResolved` blocks that throw; forwarded types
    /// (`implements`) that the instance does not conform to. Warnings: a `singleton` or
    /// `eagerSingleton` that holds a `weakSingleton` (directly or through `unique`/`graph`
    /// intermediates), a value type under `weakSingleton`, and registrations that need runtime
    /// arguments (skipped; see `validate(with:)`). A failure caused by another registration's
    /// failure is reported once, at the registration closest to the cause.
    ///
    /// ```swift
    /// let report = app.validate()
    /// guard report.isValid else { fatalError("\(report)") }
    /// ```
    /// - Returns: The issues found, grouped by container.
    public func validate() -> ValidationReport { validate(with: ValidationOptions()) }

    /// Validates like `validate()`, with sample runtime arguments for the registrations that
    /// need them.
    ///
    /// ```swift
    /// var options = ValidationOptions()
    /// options.provideArguments(for: Session.self, 42, "sample-token")
    /// let report = app.validate(with: options)
    /// ```
    /// - Parameter options: Sample arguments, by registration.
    /// - Returns: The issues found, grouped by container.
    public func validate(with options: ValidationOptions) -> ValidationReport {
        let run = DryRun(root: self, options: options)
        run.run()
        return ValidationReport(
            issues: run.issues, containers: run.containers.map(\.name), registrationCount: run.subjects.count)
    }

    /// The registrations of this container and its descendants, and the dependencies between
    /// them observed by a sandboxed dry run (the same one `validate()` makes).
    ///
    /// ```swift
    /// let graph = app.dependencyGraph()
    /// try graph.dot().write(toFile: "app.dot", atomically: true, encoding: .utf8)
    /// // dot -Tsvg app.dot -o app.svg
    /// ```
    /// - Returns: The graph; render it with `dot()` or `mermaid()`.
    public func dependencyGraph() -> DependencyGraph { dependencyGraph(with: ValidationOptions()) }

    /// The dependency graph, with sample runtime arguments so that registrations needing them
    /// are dry-run too and their dependencies appear.
    /// - Parameter options: Sample arguments, by registration.
    /// - Returns: The graph.
    public func dependencyGraph(with options: ValidationOptions) -> DependencyGraph {
        let run = DryRun(root: self, options: options)
        run.run()
        return DependencyGraph(run)
    }
}
