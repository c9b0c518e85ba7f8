import ScopeGraph

/// The demo's command line, parsed in this one place.
///
/// ```
/// scopegraph-demo                  compose the app, resolve it, print the tree, a summary and
///                                  the validation report
/// scopegraph-demo --fail           compose it with a missing collaboration link, to show the error
/// scopegraph-demo --graph dot      print the dependency graph (Graphviz DOT or Mermaid) and exit
/// ```
struct DemoOptions: Equatable {
    /// Compose the app with a deliberate mistake (checkout is not linked to cart).
    var breaksComposition = false
    /// Print the app's dependency graph in this format instead of running the app.
    var graphFormat: DependencyGraph.Format?

    /// The text printed for `--help` and after a usage error.
    static let usage = """
        usage: scopegraph-demo [--fail] [--graph \(formatNames)] [--help]

          --fail           compose the app without linking 'checkout' to 'cart', so resolving the app
                           fails and the demo prints the ResolutionError (exit status 1)
          --graph FORMAT   print the app's dependency graph and exit; FORMAT is dot (Graphviz DOT)
                           or mermaid (a Mermaid flowchart); --graph=FORMAT works too. A picture:
                           scopegraph-demo --graph dot | dot -Tsvg -o graph.svg
          --help           print this text

        exit status: 0 on success, 1 when the app fails to resolve or validate, 2 on a usage error
        """

    /// The format names `--graph` accepts, as `dot|mermaid`.
    private static let formatNames = DependencyGraph.Format.allCases.map(\.rawValue).joined(separator: "|")

    /// What parsing the command line asks the demo to do.
    enum Outcome: Equatable {
        case run(DemoOptions)
        case help
        case usageError(String)
    }

    /// Parses the arguments that follow the executable's name.
    /// - Parameter arguments: `CommandLine.arguments.dropFirst()`.
    /// - Returns: The options, a request for help, or a usage error.
    static func parse(_ arguments: some Sequence<String>) -> Outcome {
        var options = DemoOptions()
        var remaining = arguments.makeIterator()
        while let argument = remaining.next() {
            switch argument {
            case "--fail":
                options.breaksComposition = true
            case _ where argument == "--graph" || argument.hasPrefix("--graph="):
                let value = argument == "--graph" ? remaining.next() : String(argument.dropFirst("--graph=".count))
                guard let name = value else { return .usageError("--graph needs a format: \(formatNames)") }
                guard let format = DependencyGraph.Format(rawValue: name) else {
                    return .usageError("unknown graph format '\(name)'; use \(formatNames)")
                }
                options.graphFormat = format
            case "--help", "-h":
                return .help
            default:
                return .usageError("unknown argument '\(argument)'")
            }
        }
        return .run(options)
    }
}
