import Foundation
import ScopeGraph

// scopegraph-demo: composes a small modular app with ScopeGraph, resolves its entry point,
// prints the container tree, a summary and the validation report; or, with `--graph`, prints
// its dependency graph. See `Composition.swift` and `Modules.swift` for the wiring.
//
// This top-level code runs on the main actor, and it awaits: `bootstrapAsync()` opens the
// async-built `OrderStore`, and the main-actor `CheckoutViewModel` is then resolved
// synchronously, here on the main actor.

switch DemoOptions.parse(CommandLine.arguments.dropFirst()) {
case .help:
    print(DemoOptions.usage)
case .usageError(let message):
    printToStandardError("scopegraph-demo: \(message)\n\n\(DemoOptions.usage)")
    exit(2)
case .run(let options):
    if let format = options.graphFormat {
        exit(await printGraph(options, as: format))
    }
    exit(await runDemo(options))
}

/// Composes, bootstraps and resolves the app; prints the tree, the summary, the view model's
/// lines and the validation report.
/// - Parameter options: The parsed command line.
/// - Returns: The exit status: 0, or 1 after a resolution error (printed to standard error) or
///   an invalid validation report.
@MainActor
func runDemo(_ options: DemoOptions) async -> Int32 {
    let containers = composeApp(options, logger: Logger(prefix: "[demo]"))
    print(containers.core)
    print()
    let resolved = await resolveAndRun(containers)
    print()
    // Validation resolves every registration again in a sandbox: factories run (so telemetry
    // logs its start and the store its opening once more), and nothing it builds is kept.
    // `validateAsync()` awaits the async factory and runs the main-actor one on the main actor;
    // `validate()` would report both as not run.
    print("validateAsync(): a sandboxed dry run of every registration, async and main-actor ones included")
    let report = await containers.core.validateAsync()
    print(report)
    return resolved && report.isValid ? 0 : 1
}

/// Bootstraps the app (opening the async-built store), resolves `App` from 'shell', runs it and
/// prints the summary; then resolves the main-actor view model, synchronously, on the main actor.
/// - Parameter containers: The composed app.
/// - Returns: `false` after printing a resolution error to standard error.
@MainActor
func resolveAndRun(_ containers: AppContainers) async -> Bool {
    do {
        print("bootstrapAsync(): builds the eager singletons, awaiting the async ones")
        try await containers.core.bootstrapAsync()
        print("resolve(App.self) from 'shell', then app.run():")
        let app = try containers.shell.resolve(App.self)
        let order = app.run()
        print()
        for line in try summarize(app, order: order, in: containers) { print(line) }
        print()
        // A synchronous resolve on the main actor runs the main-actor factory inline; the store
        // it needs is already in the cache.
        print("resolve(CheckoutViewModel.self) from 'shell', on the main actor:")
        let viewModel = try containers.shell.resolve(CheckoutViewModel.self)
        print("  \(viewModel.title)")
        print("  \(viewModel.status)")
        return true
    } catch let error as ResolutionError {
        printToStandardError(error.description)
        return false
    } catch {
        printToStandardError("scopegraph-demo: \(error)")
        return false
    }
}

/// Prints the app's dependency graph (observed by a sandboxed dry run, as `validateAsync()`
/// makes, so the async store and the main-actor view model are run and drawn with their edges).
/// Log lines go to standard error, so that standard output is the graph alone.
/// - Parameters:
///   - options: The parsed command line; `--fail` shows the broken composition's graph.
///   - format: Graphviz DOT or Mermaid.
/// - Returns: The exit status, 0.
func printGraph(_ options: DemoOptions, as format: DependencyGraph.Format) async -> Int32 {
    let containers = composeApp(options, logger: Logger(prefix: "[demo]", destination: .standardError))
    print(await containers.core.dependencyGraphAsync().rendered(as: format), terminator: "")
    return 0
}

/// Writes one line to standard error.
/// - Parameter text: The text, without the final newline.
func printToStandardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
