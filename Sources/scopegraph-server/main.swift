import Foundation
import ScopeGraph

// scopegraph-server: a server-style use of ScopeGraph. Serves simulated requests concurrently,
// each in a scope of its own (`withScope`) with a request-scoped handler that borrows from an
// app-wide async connection pool; then shuts the app down and checks that everything was
// closed, in order, and that memory stayed flat. Exits non-zero when a check fails.
//
//     swift run scopegraph-server [--requests N] [--concurrency N]

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex,
        let parsed = Int(arguments[arguments.index(after: index)]), parsed > 0
    else { return value }
    return parsed
}
let requests = option("--requests", default: 5_000)
let concurrency = option("--concurrency", default: 64)

let app = ServerApp(poolSize: concurrency)
var failures: [String] = []

/// Serves `count` requests, at most `concurrency` at a time.
func serve(_ count: Int, from first: Int) async throws {
    try await withThrowingTaskGroup(of: Int.self) { group in
        var next = first
        for _ in 0..<min(concurrency, count) {
            let request = next
            group.addTask { try await app.serve(request) }
            next += 1
        }
        while try await group.next() != nil {
            guard next < first + count else { continue }
            let request = next
            group.addTask { try await app.serve(request) }
            next += 1
        }
    }
}

// Warm up, then measure over the rest: memory must not grow with the number of requests.
let warmUp = min(1_000, requests / 5)
try await serve(warmUp, from: 0)
let memoryBefore = ResidentMemory.bytes()
try await serve(requests - warmUp, from: warmUp)
let memoryAfter = ResidentMemory.bytes()

let pool = try await app.root.resolveAsync(ConnectionPool.self)
let counts = pool.counts
print("served \(requests) requests, at most \(concurrency) at a time")
print("connections borrowed: \(counts.borrowed), returned: \(counts.returned)")
print("request handlers closed: \(app.closed.count(of: "RequestHandler")), alive: \(RequestHandler.alive)")
if counts.borrowed != requests { failures.append("borrowed \(counts.borrowed) connections for \(requests) requests") }
if counts.returned != counts.borrowed {
    failures.append("\(counts.borrowed - counts.returned) connections not returned")
}
if app.closed.count(of: "RequestHandler") != requests { failures.append("not every request handler was closed") }
// Every request's scope is freed with its handler once the request ends.
if RequestHandler.alive != 0 { failures.append("\(RequestHandler.alive) request handlers still alive") }
if let memoryBefore, let memoryAfter {
    let growth = memoryAfter - memoryBefore
    print(
        "resident memory after \(warmUp) requests: \(memoryBefore / 1024) kB; after \(requests): \(memoryAfter / 1024) kB"
    )
    // Flat: page-granular noise only. A leaked scope per request (a container, its handler and
    // its connection, about a kilobyte) would grow it by megabytes over the run.
    if growth > 2 << 20 { failures.append("resident memory grew by \(growth / 1024) kB over the run") }
}

print("shutting down…")
try await app.root.shutdown()
print("closed, in order: \(app.closed.order.joined(separator: ", "))")
if !pool.counts.open, app.closed.order.last == "ConnectionPool" {
    print("the connection pool is closed")
} else {
    failures.append("the connection pool was not closed last")
}
do {
    _ = try await app.serve(requests)
    failures.append("a request was served after shutdown")
} catch let error as ResolutionError {
    print("a request after shutdown: \(error.kind)")
}

if failures.isEmpty {
    print("all checks passed")
} else {
    for failure in failures { FileHandle.standardError.write(Data("FAILED: \(failure)\n".utf8)) }
    exit(1)
}
