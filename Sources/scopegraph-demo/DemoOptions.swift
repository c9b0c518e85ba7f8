/// The demo's command line, parsed in this one place.
///
/// ```
/// scopegraph-demo            compose the app, resolve it, print the tree and a summary
/// scopegraph-demo --fail     compose it with a missing collaboration link, to show the error
/// ```
struct DemoOptions: Equatable {
    /// Compose the app with a deliberate mistake (checkout is not linked to cart).
    var breaksComposition = false

    /// The text printed for `--help` and after a usage error.
    static let usage = """
        usage: scopegraph-demo [--fail] [--help]

          --fail   compose the app without linking 'checkout' to 'cart', so resolving the app fails
                   and the demo prints the ResolutionError (exit status 1)
          --help   print this text
        """

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
        for argument in arguments {
            switch argument {
            case "--fail": options.breaksComposition = true
            case "--help", "-h": return .help
            default: return .usageError("unknown argument '\(argument)'")
            }
        }
        return .run(options)
    }
}
