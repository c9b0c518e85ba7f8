import Foundation
import ScopeGraph

// scopegraph-demo: composes a small modular app with ScopeGraph, resolves its entry point,
// prints the container tree, a summary and the validation report; or, with `--graph`, prints
// its dependency graph. See `Composition.swift` and `Modules.swift` for the wiring.

switch DemoOptions.parse(CommandLine.arguments.dropFirst()) {
case .help:
    print(DemoOptions.usage)
case .usageError(let message):
    printToStandardError("scopegraph-demo: \(message)\n\n\(DemoOptions.usage)")
    exit(2)
case .run(let options):
    if let format = options.graphFormat {
        exit(printGraph(options, as: format))
    }
    exit(runDemo(options))
}

/// Composes, bootstraps and resolves the app; prints the tree, the summary and the validation
/// report.
/// - Parameter options: The parsed command line.
/// - Returns: The exit status: 0, or 1 after a resolution error (printed to standard error) or
///   an invalid validation report.
func runDemo(_ options: DemoOptions) -> Int32 {
    let containers = composeApp(options, logger: Logger(prefix: "[demo]"))
    print(containers.core)
    print()
    let resolved = resolveAndRun(containers)
    print()
    // Validation resolves every registration again in a sandbox: factories run (so telemetry
    // logs its start once more), and nothing it builds is kept.
    print("validate(): a sandboxed dry run of every registration")
    let report = containers.core.validate()
    print(report)
    return resolved && report.isValid ? 0 : 1
}

/// Bootstraps the app, resolves `App` from 'shell', runs it and prints the summary.
/// - Parameter containers: The composed app.
/// - Returns: `false` after printing a resolution error to standard error.
func resolveAndRun(_ containers: AppContainers) -> Bool {
    do {
        print("bootstrap(): builds the eager singletons")
        try containers.core.bootstrap()
        print("resolve(App.self) from 'shell', then app.run():")
        let app = try containers.shell.resolve(App.self)
        let order = app.run()
        print()
        for line in try summarize(app, order: order, in: containers) { print(line) }
        return true
    } catch let error as ResolutionError {
        printToStandardError(error.description)
        return false
    } catch {
        printToStandardError("scopegraph-demo: \(error)")
        return false
    }
}

/// Prints the app's dependency graph (observed by a sandboxed dry run, as `validate()` makes).
/// Log lines go to standard error, so that standard output is the graph alone.
/// - Parameters:
///   - options: The parsed command line; `--fail` shows the broken composition's graph.
///   - format: Graphviz DOT or Mermaid.
/// - Returns: The exit status, 0.
func printGraph(_ options: DemoOptions, as format: DependencyGraph.Format) -> Int32 {
    let containers = composeApp(options, logger: Logger(prefix: "[demo]", destination: .standardError))
    print(containers.core.dependencyGraph().rendered(as: format), terminator: "")
    return 0
}

/// Writes one line to standard error.
/// - Parameter text: The text, without the final newline.
func printToStandardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
