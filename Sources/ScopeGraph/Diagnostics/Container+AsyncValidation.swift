extension Container {
    /// Validates like `validate()`, running async factories too (awaited) and main-actor
    /// factories on the main actor: the check for an app that registers async or main-actor
    /// services. (`validate()` reports those as not run, with a warning.)
    ///
    /// ```swift
    /// let report = await app.validateAsync()
    /// guard report.isValid else { fatalError("\(report)") }
    /// ```
    /// - Returns: The issues found, grouped by container.
    public func validateAsync() async -> ValidationReport { await validateAsync(with: ValidationOptions()) }

    /// Validates like `validateAsync()`, with sample runtime arguments for the registrations
    /// that need them.
    /// - Parameter options: Sample arguments, by registration.
    /// - Returns: The issues found, grouped by container.
    public func validateAsync(with options: ValidationOptions) async -> ValidationReport {
        let run = DryRun(root: self, options: options)
        await run.runAsync()
        return ValidationReport(
            issues: run.issues, containers: run.containers.map(\.name), registrationCount: run.subjects.count)
    }

    /// The dependency graph, observed by a dry run that runs async and main-actor factories too
    /// (the one `validateAsync()` makes).
    /// - Returns: The graph; render it with `dot()` or `mermaid()`.
    public func dependencyGraphAsync() async -> DependencyGraph {
        await dependencyGraphAsync(with: ValidationOptions())
    }

    /// `dependencyGraphAsync()`, with sample runtime arguments.
    /// - Parameter options: Sample arguments, by registration.
    /// - Returns: The graph.
    public func dependencyGraphAsync(with options: ValidationOptions) async -> DependencyGraph {
        let run = DryRun(root: self, options: options)
        await run.runAsync()
        return DependencyGraph(run)
    }
}
