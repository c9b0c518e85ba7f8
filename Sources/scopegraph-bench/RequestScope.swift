import ScopeGraphTesting

/// Scenario K: a server's request scope. Each request creates a child of the app container,
/// resolves a `perContainer` handler (a root singleton and a `unique` helper as
/// dependencies), and drops the child.
enum RequestScope {
    /// Heap growth (glibc in-use bytes) between the two readings that still counts as flat.
    static let flatHeapBytes = 256 * 1024

    static func makeApp() -> Container {
        let app = Container(name: "app")
        app.register((any Settings).self, lifetime: .singleton) { _ in AppSettings() }
        app.register((any RequestHelping).self, lifetime: .unique) { _ in RequestHelper() }
        app.register((any RequestHandling).self, lifetime: .perContainer) { r in
            RequestHandler(settings: try r.resolve(), helper: try r.resolve())
        }
        return app
    }

    /// One request: a child container, the handler resolved from it, the child dropped.
    @inline(__always)
    static func serve(_ app: Container, into sink: Sink) throws {
        let request = app.makeChild(name: "request")
        sink.keep(try request.resolve((any RequestHandling).self))
    }

    static func perRequest(_ harness: Harness) throws -> ScenarioResult? {
        let app = makeApp()
        let failures = try checkSemantics(app)
        let direct = DirectComposition()
        let sink = harness.sink
        let figures = try harness.measure([
            Contender("scopegraph") { count in
                for _ in 0..<count { try serve(app, into: sink) }
            },
            Contender("direct") { count in
                for _ in 0..<count { sink.keep(direct.requestHandler()) }
            },
        ])
        if harness.options.callgrind { return nil }
        let growth = try memoryGrowth(harness.options)
        let small = harness.options.requestsBeforeFirstReading
        let large = harness.options.requestsBeforeSecondReading
        let heapGrowth = growth.heap.map { $0.after - $0.before }
        var notes = [
            "direct = the handler and helper built by hand, the singleton read from a composition root; naive does not apply (no scopes)"
        ]
        notes.append(
            "memory after \(small) vs \(large) requests: RSS "
                + (growth.resident.map { "\($0.before) kB → \($0.after) kB" } ?? "unavailable")
                + ", heap in use " + (growth.heap.map { "\($0.before) → \($0.after) bytes" } ?? "unavailable"))
        var memoryLine = "bench K-memory requests_small=\(small) requests_large=\(large)"
        if let resident = growth.resident {
            memoryLine += " rss_small_kb=\(resident.before) rss_large_kb=\(resident.after)"
        }
        if let heap = growth.heap { memoryLine += " heap_small_bytes=\(heap.before) heap_large_bytes=\(heap.after)" }
        return ScenarioResult(
            name: "K-request-scope", title: "K request scope (child, resolve, drop)",
            scopegraph: figures[0], direct: figures[1],
            target: Target(
                text: "≤ 10 × direct; memory flat", measured: figures[0].median / figures[1].median, limit: 10,
                alsoRequired: (heapGrowth ?? 0) < flatHeapBytes),
            notes: notes, failures: failures, extraLines: [memoryLine])
    }

    /// Checks what the scenario relies on: one handler per request container, the root's
    /// singleton inside it.
    private static func checkSemantics(_ app: Container) throws -> [String] {
        let settings = try app.resolve((any Settings).self)
        let first = app.makeChild(name: "request")
        let second = app.makeChild(name: "request")
        let handler = try first.resolve((any RequestHandling).self)
        var failures: [String] = []
        if handler !== (try first.resolve((any RequestHandling).self)) {
            failures.append("two resolves from one request container gave two handlers")
        }
        if handler === (try second.resolve((any RequestHandling).self)) {
            failures.append("two request containers shared one handler")
        }
        if (handler as? RequestHandler)?.settings !== settings {
            failures.append("the handler did not get the root singleton")
        }
        return failures
    }

    /// Memory readings after the first and the second batch of requests, on a fresh app.
    private static func memoryGrowth(_ options: Options) throws
        -> (resident: (before: Int, after: Int)?, heap: (before: Int, after: Int)?)
    {
        let app = makeApp()
        let sink = Sink()
        for _ in 0..<options.requestsBeforeFirstReading { try serve(app, into: sink) }
        let residentBefore = Memory.residentKilobytes()
        let heapBefore = Memory.heapBytesInUse()
        for _ in options.requestsBeforeFirstReading..<options.requestsBeforeSecondReading {
            try serve(app, into: sink)
        }
        let residentAfter = Memory.residentKilobytes()
        let heapAfter = Memory.heapBytesInUse()
        return (
            residentBefore.flatMap { before in residentAfter.map { (before, $0) } },
            heapBefore.flatMap { before in heapAfter.map { (before, $0) } }
        )
    }
}
