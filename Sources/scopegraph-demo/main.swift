import Foundation
import ScopeGraph

// scopegraph-demo: composes a small modular app with ScopeGraph, resolves its entry point,
// prints the container tree and a summary. See `Composition.swift` for the wiring.

switch DemoOptions.parse(CommandLine.arguments.dropFirst()) {
case .help:
    print(DemoOptions.usage)
case .usageError(let message):
    printToStandardError("scopegraph-demo: \(message)\n\n\(DemoOptions.usage)")
    exit(2)
case .run(let options):
    exit(runDemo(options))
}

/// Composes, bootstraps and resolves the app; prints the tree and the summary.
/// - Parameter options: The parsed command line.
/// - Returns: The exit status: 0, or 1 after printing a resolution error to standard error.
func runDemo(_ options: DemoOptions) -> Int32 {
    let containers = composeApp(options)
    print(containers.core)
    print()
    do {
        try containers.core.bootstrap()
        let app = try containers.shell.resolve(App.self)
        let order = app.run()
        print()
        for line in try summarize(app, order: order, in: containers) { print(line) }
        return 0
    } catch let error as ResolutionError {
        printToStandardError(error.description)
        return 1
    } catch {
        printToStandardError("scopegraph-demo: \(error)")
        return 1
    }
}

/// Writes one line to standard error.
/// - Parameter text: The text, without the final newline.
func printToStandardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
