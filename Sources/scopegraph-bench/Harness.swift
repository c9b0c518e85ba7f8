import Foundation

/// Keeps results alive so the optimizer cannot delete the work being measured: every object
/// is stored (so it escapes and is really allocated) and its address folded into a checksum
/// printed at the end.
final class Sink: @unchecked Sendable {
    // @unchecked: used by one thread at a time: the main thread, or a task that the main
    // thread waits for (`TaskBridge.run`, whose semaphore orders the accesses).
    private(set) var checksum: UInt = 0
    private var last: AnyObject?

    @inline(never)
    func keep(_ object: AnyObject) {
        checksum &+= UInt(bitPattern: ObjectIdentifier(object))
        last = object
    }

    @inline(never)
    func add(_ value: Int) { checksum &+= UInt(bitPattern: value) }
}

/// One way of doing a scenario's operation: `batch(n)` performs it `n` times.
struct Contender {
    let label: String
    let batch: (Int) throws -> Void
    /// For a contender that times itself: performs the operation `n` times and returns the
    /// nanoseconds of the part that counts; the harness then times this instead of `batch`.
    let timedBatch: ((Int) throws -> Double)?

    init(_ label: String, batch: @escaping (Int) throws -> Void) {
        self.label = label
        self.batch = batch
        timedBatch = nil
    }

    private init(label: String, timedBatch: @escaping (Int) throws -> Double) {
        self.label = label
        batch = { _ = try timedBatch($0) }
        self.timedBatch = timedBatch
    }

    /// A contender whose batch runs in a task (`TaskBridge.run`): the loop of `n` operations
    /// is timed inside the task, so creating the task and waking the main thread are not.
    static func inTask(_ label: String, batch: @escaping @Sendable (Int) async throws -> Void) -> Contender {
        Contender(label: label) { count in
            try TaskBridge.run {
                let clock = ContinuousClock()
                let start = clock.now
                try await batch(count)
                return (clock.now - start).nanoseconds
            }
        }
    }
}

/// A measured figure: the median of the repetitions, with their range.
struct Figure {
    let median: Double
    let low: Double
    let high: Double
    /// The repetitions, one per round, in the order of the rounds.
    let samples: [Double]

    init(samples: [Double]) {
        self.samples = samples
        median = Self.median(of: samples)
        low = samples.min() ?? .nan
        high = samples.max() ?? .nan
    }

    /// The median of this figure's repetitions over `reference`'s of the same rounds: both
    /// sides of each quotient ran back to back, so a round in which the machine ran slow or
    /// fast weighs on both alike. `nil` when the two were not measured in the same rounds.
    func perRoundRatio(to reference: Figure) -> Double? {
        guard samples.count == reference.samples.count, !samples.isEmpty else { return nil }
        return Self.median(of: zip(samples, reference.samples).map { $0 / $1 })
    }

    private static func median(of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// Times contenders: calibrates each to the measurement time, warms it up, then runs the
/// timed repetitions round by round, every contender once per round in a rotating order, so
/// that machine drift hits all of them alike.
final class Harness {
    let options: Options
    let sink = Sink()
    private let clock = ContinuousClock()

    init(options: Options) { self.options = options }

    /// Nanoseconds per operation of each contender, in the order given.
    func measure(_ contenders: [Contender]) throws -> [Figure] {
        if options.callgrind {
            // Profile mode: one contender (ScopeGraph unless told otherwise), a fixed count.
            let chosen = contenders[min(options.callgrindContender, contenders.count - 1)]
            try chosen.batch(options.callgrindOperations)
            return contenders.map { _ in Figure(samples: [0]) }
        }
        let counts = try contenders.map(calibrate)
        for (contender, count) in zip(contenders, counts) { _ = try time(contender, count) }
        return try interleave(
            contenders.indices.map { index in
                { try self.time(contenders[index], counts[index]) / Double(counts[index]) }
            })
    }

    /// Runs each sampler `options.rounds` times, round by round in a rotating order, and
    /// returns each one's figure; with `warmUp`, runs each once untimed first.
    func interleave(warmUp: Bool = false, _ samplers: [() throws -> Double]) throws -> [Figure] {
        if warmUp { for sampler in samplers { _ = try sampler() } }
        var samples = Array(repeating: [Double](), count: samplers.count)
        for round in 0..<options.rounds {
            for offset in samplers.indices {
                let index = (round + offset) % samplers.count
                samples[index].append(try samplers[index]())
            }
        }
        return samples.map(Figure.init(samples:))
    }

    /// The nanoseconds `body` takes.
    func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
        let start = clock.now
        try body()
        return (clock.now - start).nanoseconds
    }

    private func time(_ contender: Contender, _ count: Int) throws -> Double {
        if let timedBatch = contender.timedBatch { return try timedBatch(count) }
        return try nanoseconds { try contender.batch(count) }
    }

    /// An operation count that takes about the measurement time.
    private func calibrate(_ contender: Contender) throws -> Int {
        let target = options.measurementNanoseconds
        var count = 1
        while true {
            let elapsed = try time(contender, count)
            if elapsed >= target / 10 || count >= 1 << 40 {
                return max(1, Int(Double(count) * target / max(elapsed, 1)))
            }
            count *= elapsed < target / 1000 ? 16 : 2
        }
    }
}

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

/// Runs async work for the synchronous harness: starts a detached task (on the global
/// concurrent executor, never the main actor) and blocks the calling thread, the benchmark's
/// main thread, on a semaphore until the task is done.
enum TaskBridge {
    static func run<R: Sendable>(_ body: @escaping @Sendable () async throws -> R) throws -> R {
        let outcome = Outcome<R>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                outcome.result = .success(try await body())
            } catch {
                outcome.result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        return try outcome.result!.get()
    }

    /// The task's result, handed to the waiting thread.
    private final class Outcome<R>: @unchecked Sendable {
        // @unchecked: written by the task before it signals the semaphore, read by the waiting
        // thread after it wakes (the semaphore orders the two).
        var result: Result<R, any Error>?
    }
}

/// Runs a body on several threads that start together, and times the whole from the start
/// signal until the last thread is done (thread creation is not timed).
enum ThreadGang {
    /// Wall nanoseconds, and each thread's result in thread order.
    static func run(threads: Int, _ body: @escaping @Sendable (Int) -> Int) -> (nanoseconds: Double, results: [Int]) {
        let gate = Gate(threads: threads)
        for index in 0..<threads {
            let thread = Thread {
                gate.arriveAndWait()
                let result = body(index)
                gate.finish(index, result)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        gate.waitUntilReady()
        let clock = ContinuousClock()
        let start = clock.now
        gate.open()
        let results = gate.waitUntilFinished()
        return ((clock.now - start).nanoseconds, results)
    }

    /// The start line and the finish line of a `ThreadGang` run.
    private final class Gate: @unchecked Sendable {
        // @unchecked: every stored property is only touched with `condition` locked.
        private let condition = NSCondition()
        private let threads: Int
        private var ready = 0
        private var isOpen = false
        private var results: [Int?]

        init(threads: Int) {
            self.threads = threads
            results = Array(repeating: nil, count: threads)
        }

        func arriveAndWait() {
            condition.lock()
            ready += 1
            condition.broadcast()
            while !isOpen { condition.wait() }
            condition.unlock()
        }

        func waitUntilReady() {
            condition.lock()
            while ready < threads { condition.wait() }
            condition.unlock()
        }

        func open() {
            condition.lock()
            isOpen = true
            condition.broadcast()
            condition.unlock()
        }

        func finish(_ index: Int, _ result: Int) {
            condition.lock()
            results[index] = result
            condition.broadcast()
            condition.unlock()
        }

        func waitUntilFinished() -> [Int] {
            condition.lock()
            defer { condition.unlock() }
            while results.contains(where: { $0 == nil }) { condition.wait() }
            return results.map { $0! }
        }
    }
}
