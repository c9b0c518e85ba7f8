import Foundation
import ScopeGraphTestSupport
import Testing

/// Runs the built `scopegraph-demo` executable with `--graph`, as a user would:
/// `scopegraph-demo --graph dot | dot -Tsvg`.
@Suite struct DemoGraphTests {
    @Test(
        .enabled(if: DemoExecutable.url != nil, DemoExecutable.missing),
        .enabled(if: GraphvizDot.path != nil, "Graphviz `dot` is not installed: apt-get install -y graphviz"))
    func theDemosDotGraphPipesIntoGraphviz() throws {
        let demo = try #require(DemoExecutable.url)
        let dot = URL(fileURLWithPath: try #require(GraphvizDot.path))
        let files = try ScratchFiles()
        let pipe = Pipe()

        let drawing = try ChildProcess(
            dot, ["-Tsvg"], standardInput: pipe, standardOutput: files.handle("graph.svg"),
            standardError: files.handle("dot.err"))
        let printing = try ChildProcess(
            demo, ["--graph", "dot"], standardOutput: pipe, standardError: files.handle("demo.err"))

        let demoStatus = printing.waitForStatus()
        let dotStatus = drawing.waitForStatus()
        let demoErrors = try files.text("demo.err")
        let dotErrors = try files.text("dot.err")
        #expect(demoStatus == 0, "scopegraph-demo --graph dot: \(demoErrors)")
        #expect(dotStatus == 0, "dot -Tsvg: \(dotErrors)")
        let svg = try files.text("graph.svg")
        #expect(svg.contains("<svg"))
        for container in ["app", "catalog", "cart", "checkout", "shell"] {
            #expect(svg.contains(">\(container)</text>"), "no cluster labelled \(container)")
        }
    }

    @Test(.enabled(if: DemoExecutable.url != nil, DemoExecutable.missing))
    func theDemosMermaidGraphIsAFlowchartOfItsContainers() throws {
        let run = try DemoExecutable.run(["--graph", "mermaid"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("flowchart LR\n"))
        for container in ["app", "catalog", "cart", "checkout", "shell"] {
            #expect(run.output.contains("[\"\(container)"), "no subgraph for \(container)")
        }
    }

    @Test(
        .enabled(if: DemoExecutable.url != nil, DemoExecutable.missing),
        arguments: [["--graph"], ["--graph", "png"], ["--graph=svg"]])
    func aMissingOrUnknownGraphFormatIsAUsageError(arguments: [String]) throws {
        let run = try DemoExecutable.run(arguments)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains("usage: scopegraph-demo"))
    }
}

/// The `scopegraph-demo` executable that SwiftPM builds next to the test bundle.
enum DemoExecutable {
    /// Why the demo tests are skipped when the executable is missing.
    static let missing: Comment = "scopegraph-demo is not built next to the test bundle: swift build --build-tests"

    /// The executable, when it is there.
    static let url: URL? = {
        var directories = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        if let main = Bundle.main.executableURL { directories.append(main.deletingLastPathComponent()) }
        directories += Bundle.allBundles.filter { $0.bundleURL.pathExtension == "xctest" }
            .map { $0.bundleURL.deletingLastPathComponent() }
        return directories.map { $0.appendingPathComponent("scopegraph-demo") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs the demo with `arguments` and waits for it (bounded).
    /// - Returns: Its exit status (`nil` after a timeout), standard output and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32?, output: String, errors: String) {
        let demo = try #require(url)
        let files = try ScratchFiles()
        let process = try ChildProcess(
            demo, arguments, standardOutput: files.handle("out"), standardError: files.handle("err"))
        let status = process.waitForStatus()
        return (status, try files.text("out"), try files.text("err"))
    }
}

/// A started child process whose exit is awaited with a timeout, so a hang fails the test.
struct ChildProcess {
    private let process = Process()
    private let exited = DispatchSemaphore(value: 0)

    /// Starts `executable`. A `Pipe` passed as both one process's output and another's input
    /// connects them; the parent's copies of its ends are closed by `Process` when each starts.
    init(
        _ executable: URL, _ arguments: [String], standardInput: Any? = nil, standardOutput: Any,
        standardError: Any
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = standardInput ?? FileHandle.nullDevice
        process.standardOutput = standardOutput
        process.standardError = standardError
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    /// Waits for the process to exit, at most `timeout` seconds.
    /// - Returns: The exit status, or `nil` (and an issue) when it had to be terminated.
    func waitForStatus(timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) -> Int32? {
        guard exited.wait(timeout: .now() + timeout) == .success else {
            process.terminate()
            Issue.record(
                "\(process.executableURL?.lastPathComponent ?? "process") did not exit within \(timeout) s",
                sourceLocation: sourceLocation)
            return nil
        }
        return process.terminationStatus
    }
}

/// Files in a fresh temporary directory, for a child process's output: unlike a pipe, a file
/// never fills up and blocks the writer. The directory is removed with the value.
final class ScratchFiles {
    private let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("scopegraph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A new empty file, open for writing.
    func handle(_ name: String) throws -> FileHandle {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return try FileHandle(forWritingTo: url)
    }

    /// The file's text.
    func text(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
    }
}
