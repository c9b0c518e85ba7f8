import ScopeGraphTesting

/// Scenario K2: a server's request through `withScope`. Each request makes a child of the app
/// container, resolves its `perContainer` handler with `resolveAsync`, and shuts the child down
/// when the body returns, which runs the handler's one `onShutdown` hook.
enum ScopedRequest {
    /// K's app with an `onShutdown` hook on the handler that counts closed handlers.
    static func makeApp(closed: Counter) -> Container {
        let app = RequestScope.makeApp()
        app.register((any RequestHandling).self, lifetime: .perContainer) { r in
            RequestHandler(settings: try r.resolve(), helper: try r.resolve())
        }
        .onShutdown { _ in closed.increment() }
        return app
    }

    /// One request in its own scope.
    @inline(__always)
    static func serve(_ app: Container, into sink: Sink) async throws {
        try await app.withScope(name: "request") { request in
            sink.keep(try await request.resolveAsync((any RequestHandling).self))
        }
    }

    /// `count` requests, one after the other, in a task the calling thread waits for.
    static func serveBatch(_ app: Container, count: Int, into sink: Sink) throws {
        try TaskBridge.run {
            for _ in 0..<count { try await serve(app, into: sink) }
        }
    }

    static func perScopedRequest(_ harness: Harness) throws -> ScenarioResult? {
        let closed = Counter()
        let app = makeApp(closed: closed)
        let sink = harness.sink
        let plainApp = RequestScope.makeApp()
        let direct = DirectComposition()
        let figures = try harness.measure([
            Contender.inTask("scopegraph") { count in
                for _ in 0..<count { try await serve(app, into: sink) }
            },
            Contender("direct") { count in
                for _ in 0..<count { sink.keep(direct.requestHandler()) }
            },
            // K's work in a task too: both sides of the ratio then run on the task pool's
            // threads, not one on the main thread and the other on a pool thread (on a 2-CPU
            // machine whose CPUs differ in speed from run to run, that split moved the ratio
            // by a factor of 2).
            Contender.inTask("scopegraph-K") { count in
                for _ in 0..<count { try RequestScope.serve(plainApp, into: sink) }
            },
        ])
        if harness.options.callgrind { return nil }

        // Every request's handler closed, once: checked on a fresh app, over the memory run.
        let countedClosed = Counter()
        let countedApp = makeApp(closed: countedClosed)
        let small = harness.options.requestsBeforeFirstReading
        let large = harness.options.scopedRequestsBeforeSecondReading
        let growth = try RequestScope.memoryGrowth(small: small, large: large) { count in
            try serveBatch(countedApp, count: count, into: sink)
        }
        var failures: [String] = []
        if countedClosed.value != large {
            failures.append("\(large) requests closed \(countedClosed.value) handlers")
        }
        let heapGrowth = growth.heap.map { $0.after - $0.before }
        return ScenarioResult(
            name: "K2-scoped-request", title: "K2 request through withScope",
            scopegraph: figures[0], direct: figures[1],
            extraFields: [("scopegraph_k_ns", figures[2].median)],
            target: Target(
                text: "≤ 3 × our K; memory flat", figures[0], over: figures[2], limit: 3,
                alsoRequired: failures.isEmpty && (heapGrowth ?? 0) < RequestScope.flatHeapBytes),
            notes: [
                "withScope (child, resolveAsync of the perContainer handler, its onShutdown hook, shutdown) in a loop inside one task; our K (child, resolve, drop), also in a task, in the same rounds: \(Report.number(figures[2].median)) ns (scopegraph_k_ns)",
                "memory after \(small) vs \(large) requests: " + growth.text
                    + "; \(countedClosed.value) of \(large) handlers closed by their hook",
            ],
            failures: failures,
            extraLines: [growth.machineLine(name: "K2-memory", small: small, large: large)])
    }
}
