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
        let small = harness.options.requestsBeforeFirstReading
        let large = harness.options.requestsBeforeSecondReading
        let fresh = makeApp()
        let growth = try memoryGrowth(small: small, large: large) { count in
            for _ in 0..<count { try serve(fresh, into: sink) }
        }
        let heapGrowth = growth.heap.map { $0.after - $0.before }
        return ScenarioResult(
            name: "K-request-scope", title: "K request scope (child, resolve, drop)",
            scopegraph: figures[0], direct: figures[1],
            target: Target(
                text: "≤ 6 × direct; memory flat", figures[0], over: figures[1], limit: 6,
                alsoRequired: (heapGrowth ?? 0) < flatHeapBytes),
            notes: [
                "direct = the handler and helper built by hand, the singleton read from a composition root; naive does not apply (no scopes)",
                "memory after \(small) vs \(large) requests: " + growth.text,
            ],
            failures: failures, extraLines: [growth.machineLine(name: "K-memory", small: small, large: large)])
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

    /// Memory readings after `small` requests and after `large` (`serve(count)` serves
    /// `count` more requests).
    static func memoryGrowth(small: Int, large: Int, serve: (Int) throws -> Void) throws -> MemoryGrowth {
        try serve(small)
        let residentBefore = Memory.residentKilobytes()
        let heapBefore = Memory.heapBytesInUse()
        try serve(large - small)
        let residentAfter = Memory.residentKilobytes()
        let heapAfter = Memory.heapBytesInUse()
        return MemoryGrowth(
            resident: residentBefore.flatMap { before in residentAfter.map { (before, $0) } },
            heap: heapBefore.flatMap { before in heapAfter.map { (before, $0) } })
    }
}

/// Resident and heap memory read after a small and after a large number of requests.
struct MemoryGrowth {
    let resident: (before: Int, after: Int)?
    let heap: (before: Int, after: Int)?

    /// `RSS a kB → b kB, heap in use c → d bytes`.
    var text: String {
        "RSS " + (resident.map { "\($0.before) kB → \($0.after) kB" } ?? "unavailable")
            + ", heap in use " + (heap.map { "\($0.before) → \($0.after) bytes" } ?? "unavailable")
    }

    /// `bench NAME requests_small=… requests_large=… rss_small_kb=… …`.
    func machineLine(name: String, small: Int, large: Int) -> String {
        var line = "bench \(name) requests_small=\(small) requests_large=\(large)"
        if let resident { line += " rss_small_kb=\(resident.before) rss_large_kb=\(resident.after)" }
        if let heap { line += " heap_small_bytes=\(heap.before) heap_large_bytes=\(heap.after)" }
        return line
    }
}
