import Foundation

/// The sandboxed dry run behind `validate()` and `dependencyGraph()`.
///
/// Every registration of a subtree is produced as its own top-level resolve, from the
/// container that owns it, inside a `ResolutionScope` that isolates caches: cached lifetimes
/// are cached in the scope, so no container cache is read or written, and the scope's
/// observer records which registration asked for which. Failures are collected, reduced to
/// their causes, and turned into issues; observed edges feed the lifetime checks and the graph.
final class DryRun {
    /// A registration of the subtree, by its own key.
    struct Subject {
        let key: Key
        let entry: AnyEntry
        let container: Container
        /// Forwarded keys the container stores for this entry.
        var forwards: [Key]
    }

    /// A failed dry run of one subject (or of one of its forwarded keys).
    struct Failure {
        let subject: Int
        let error: ResolutionError
        let isForward: Bool
    }

    /// A dependency recorded while the sandbox ran: `dependent`, resolving with lookups that
    /// start at `start`, asked for a key that `entry` answered.
    struct Observation: Hashable {
        let dependent: ObjectIdentifier
        let start: ObjectIdentifier
        let entry: ObjectIdentifier
    }

    let containers: [Container]
    private(set) var subjects: [Subject] = []
    /// The issues found, by the index of the subject they are about (`Int.max`: no subject).
    private var found: [(subject: Int, issue: ValidationIssue)] = []
    /// The issues found, in subject order (registration order), then the others.
    var issues: [ValidationIssue] {
        found.enumerated().sorted { ($0.element.subject, $0.offset) < ($1.element.subject, $1.offset) }.map(
            \.element.issue)
    }
    /// Entries seen anywhere (subtree or not), by identity, for the graph.
    private(set) var entries: [ObjectIdentifier: AnyEntry] = [:]
    /// Entry-level edges in the order first observed: dependent, then dependency.
    private(set) var edges: [(from: ObjectIdentifier, to: ObjectIdentifier)] = []
    /// Edges that take part in a constructor cycle.
    private(set) var cycleEdges: Set<[ObjectIdentifier]> = []
    /// Dependencies that no registration answers: the asking entry and the missing key.
    private(set) var missing: [(from: ObjectIdentifier, key: ServiceKey)] = []

    /// The subjects whose dry run failed, whether the issue is theirs or their cause's.
    var failedEntries: Set<ObjectIdentifier> {
        Set(failures.filter { !$0.isForward }.map { ObjectIdentifier(subjects[$0.subject].entry) })
    }

    private let options: ValidationOptions
    private var failures: [Failure] = []
    private var observations: [Observation] = []
    /// Dynamic type of the instance each subject produced, by subject index.
    private var producedTypes: [Int: Any.Type] = [:]

    init(root: Container, options: ValidationOptions) {
        self.options = options
        containers = root.subtree()
        for container in containers {
            var byEntry: [ObjectIdentifier: Int] = [:]
            for (key, entry) in container.registrationsInOrder(scope: nil) {
                if entry.key == key {
                    byEntry[ObjectIdentifier(entry)] = subjects.count
                    subjects.append(Subject(key: key, entry: entry, container: container, forwards: []))
                } else if let index = byEntry[ObjectIdentifier(entry)] {
                    subjects[index].forwards.append(key)
                }
            }
        }
        for subject in subjects { entries[ObjectIdentifier(subject.entry)] = subject.entry }
    }

    /// Runs every subject in the sandbox and derives the issues.
    func run() {
        // A dry run started inside a factory would join that factory's resolve (and its
        // caches); run it on a thread of its own instead.
        if ResolutionContext.current != nil {
            let done = DispatchSemaphore(value: 0)
            let box = UncheckedBox(self)
            let parent = ResolutionScope.current
            Thread {
                box.value.runSandboxed(parent: parent)
                done.signal()
            }.start()
            done.wait()
        } else {
            runSandboxed(parent: ResolutionScope.current)
        }
        analyse()
    }

    private func runSandboxed(parent: ResolutionScope?) {
        let recorder = Recorder()
        let scope = ResolutionScope(parent: parent, observer: recorder, isolatesCaches: true)
        scope.run {
            for index in subjects.indices { dryRun(index) }
        }
        observations = recorder.observations
        for (id, entry) in recorder.entries where entries[id] == nil { entries[id] = entry }
    }

    private func dryRun(_ index: Int) {
        let subject = subjects[index]
        var arguments: Arguments?
        if !subject.key.arguments.isEmpty {
            guard let sample = options.samples[subject.key] else {
                let types = subject.key.arguments.map { String(describing: $0) }.joined(separator: ", ")
                warn(
                    index,
                    "skipped: needs runtime arguments (\(types)); supply sample values with ValidationOptions.provideArguments(for:_:) and validate(with:)"
                )
                return
            }
            arguments = sample
        }
        let request = Request(key: subject.key, start: subject.container, arguments: arguments)
        do {
            let value = try ResolutionContext.withContext { context in
                try subject.entry.produceAny(request, in: context)
            }
            producedTypes[index] = type(of: value)
            if subject.entry.lifetime == .weakSingleton, !(type(of: value) is AnyClass) {
                warn(
                    index,
                    "weakSingleton of a value type (\(type(of: value))): it cannot be held weakly and behaves as unique; register it as singleton, or make it a class"
                )
            }
        } catch {
            failures.append(
                Failure(subject: index, error: Self.resolutionError(error, key: subject.key), isForward: false))
            return
        }
        for forward in subject.forwards {
            let request = Request(key: forward, start: subject.container, arguments: arguments)
            do {
                _ = try ResolutionContext.withContext { context in
                    try Self.produce(forward.type, subject.entry, request, in: context)
                }
            } catch {
                failures.append(
                    Failure(subject: index, error: Self.resolutionError(error, key: forward), isForward: true))
            }
        }
    }

    private static func produce<R>(_ type: R.Type, _ entry: AnyEntry, _ request: Request, in context: ResolutionContext)
        throws -> R
    {
        try entry.produce(request, as: R.self, in: context)
    }

    private static func resolutionError(_ error: any Error, key: Key) -> ResolutionError {
        if let error = error as? ResolutionError { return error }
        return ResolutionError(kind: .factoryFailed(error), key: key.serviceKey, path: [key.serviceKey])
    }

    private func warn(_ index: Int, _ message: String, path: [ServiceKey] = []) {
        let subject = subjects[index]
        found.append(
            (
                index,
                ValidationIssue(
                    severity: .warning, key: subject.key.serviceKey, container: subject.container.name,
                    message: message, path: path)
            ))
    }

    // MARK: Analysis

    private func analyse() {
        var seenEdges: Set<[ObjectIdentifier]> = []
        for observation in observations where seenEdges.insert([observation.dependent, observation.entry]).inserted {
            edges.append((observation.dependent, observation.entry))
        }
        reportFailures()
        reportWeakCaptives()
        reportUnusedSamples()
    }

    /// One error per cause: a failure is left out when another subject's own dry run reports
    /// the same cause with a path that ends this one's (it depends on the broken one); the
    /// cause's issue then lists the registrations it also breaks.
    private func reportFailures() {
        var causeOf: [Int: Int] = [:]
        for (index, failure) in failures.enumerated() {
            for (other, candidate) in failures.enumerated() where other != index && candidate.subject != failure.subject
            {
                if Self.isCause(candidate, of: failure, subjects: subjects) {
                    causeOf[index] = other
                    break
                }
            }
        }
        var alsoBreaks: [Int: [String]] = [:]
        for index in causeOf.keys.sorted() {
            var root = causeOf[index]!
            while let next = causeOf[root] { root = next }
            alsoBreaks[root, default: []].append(subjects[failures[index].subject].key.serviceKey.description)
        }
        for (index, failure) in failures.enumerated() {
            markGraph(for: failure)
            guard causeOf[index] == nil else { continue }
            var message = message(for: failure)
            if let broken = alsoBreaks[index] {
                var names: [String] = []
                for name in broken where !names.contains(name) { names.append(name) }
                message += "; also breaks \(names.joined(separator: ", "))"
            }
            let subject = subjects[failure.subject]
            found.append(
                (
                    failure.subject,
                    ValidationIssue(
                        severity: .error, key: subject.key.serviceKey, container: subject.container.name,
                        message: message,
                        path: failure.error.path)
                ))
        }
    }

    /// True when `cause` is the same problem as `failure`, found closer to where it happens.
    /// "Closer" is a strict order, so following causes always ends.
    private static func isCause(_ cause: Failure, of failure: Failure, subjects: [Subject]) -> Bool {
        let (a, b) = (cause.error, failure.error)
        guard a.kind.description == b.kind.description else { return false }
        if case .circularDependency = a.kind {
            // The same loop, entered elsewhere: keep the failure whose path reaches it first.
            let (loopA, loopB) = (loop(of: a.path), loop(of: b.path))
            guard Set(loopA) == Set(loopB) else { return false }
            let (prefixA, prefixB) = (a.path.count - loopA.count, b.path.count - loopB.count)
            return prefixA < prefixB || (prefixA == prefixB && cause.subject < failure.subject)
        }
        guard a.key == b.key, a.path.count <= b.path.count, Array(b.path.suffix(a.path.count)) == a.path else {
            return false
        }
        let startsAtCause = a.path.first == subjects[cause.subject].key.serviceKey
        let startsAtFailure = b.path.first == subjects[failure.subject].key.serviceKey
        return a.path.count < b.path.count || (startsAtCause && !startsAtFailure)
    }

    /// The keys of a cycle path's loop, from the first occurrence of the repeated key.
    private static func loop(of path: [ServiceKey]) -> [ServiceKey] {
        guard let last = path.last, let first = path.firstIndex(of: last), first < path.count - 1 else { return path }
        return Array(path[first..<(path.count - 1)])
    }

    private func message(for failure: Failure) -> String {
        let error = failure.error
        let path = error.path.map(\.description).joined(separator: " -> ")
        let searched = error.searched.isEmpty ? "" : " (searched: \(error.searched.joined(separator: " -> ")))"
        switch error.kind {
        case .notRegistered:
            return "missing dependency: \(path); nothing is registered for \(error.key)\(searched)"
        case .argumentMismatch:
            return
                "missing dependency: \(path); \(error.key.typeName) is registered only with other runtime argument types\(searched)"
        case .circularDependency:
            return "circular dependency: \(path)"
        case .typeMismatch:
            if failure.isForward {
                let produced =
                    producedTypes[failure.subject].map { String(describing: $0) }
                    ?? subjects[failure.subject].key.serviceKey.typeName
                return
                    "implements \(error.key), but the instance (\(produced)) does not conform to \(error.key.typeName)"
            }
            // The resolve's suggestion names the forwarding registration and what it returned.
            let detail =
                error.suggestions.first
                ?? "the registration answering \(error.key) produced an instance that is not of type \(error.key.typeName)"
            return "type mismatch: \(path); \(detail)"
        case .factoryFailed(let underlying):
            let own = subjects[failure.subject].key.serviceKey
            if error.path == [own] || error.path.isEmpty { return "factory threw: \(underlying)" }
            return "factory of \(error.key) threw: \(underlying) (path: \(path))"
        case .requiresAsync:
            return
                "needs an async resolve: \(path); \(error.key) has an async factory (validate with validateAsync(), resolve with resolveAsync)"
        case .requiresMainActor:
            return
                "needs the main actor: \(path); \(error.key) has a main-actor factory (validate with validateAsync(), or on the main actor)"
        }
    }

    /// Adds the edges a failed resolve walked (they were never observed, since observers hear
    /// only of resolves that finish), marks cycle edges, and records missing keys.
    private func markGraph(for failure: Failure) {
        let subject = subjects[failure.subject]
        let path = failure.error.path
        guard path.first == subject.key.serviceKey || (failure.isForward && path.first == failure.error.key) else {
            return
        }
        var chain: [AnyEntry] = [subject.entry]
        var start = subject.container
        for key in path.dropFirst() {
            let current = chain[chain.count - 1]
            if current.lifetime.isOwnerRooted, let owner = current.owner { start = owner }
            guard let next = Self.entry(answering: key, from: start) else {
                switch failure.error.kind {
                case .notRegistered, .argumentMismatch:
                    // One missing node per (dependent, key), however many dry runs reach it.
                    let found = (from: ObjectIdentifier(current), key: key)
                    if !missing.contains(where: { $0.from == found.from && $0.key == found.key }) {
                        missing.append(found)
                    }
                default: break
                }
                break
            }
            chain.append(next)
        }
        for entry in chain where entries[ObjectIdentifier(entry)] == nil { entries[ObjectIdentifier(entry)] = entry }
        var known = Set(edges.map { [$0.from, $0.to] })
        for pair in zip(chain, chain.dropFirst()) {
            let edge = [ObjectIdentifier(pair.0), ObjectIdentifier(pair.1)]
            if known.insert(edge).inserted { edges.append((edge[0], edge[1])) }
        }
        if case .circularDependency = failure.error.kind, chain.count == path.count {
            let loopLength = Self.loop(of: path).count
            let loop = chain.suffix(loopLength + 1)
            for pair in zip(loop, loop.dropFirst()) {
                cycleEdges.insert([ObjectIdentifier(pair.0), ObjectIdentifier(pair.1)])
            }
        }
    }

    /// The registration a lookup from `start` finds for a printed key, as the resolve did.
    private static func entry(answering key: ServiceKey, from start: Container) -> AnyEntry? {
        for container in start.lookupOrder() {
            if let found = container.registrationsInOrder(scope: nil).first(where: { $0.key.serviceKey == key }) {
                return found.entry
            }
        }
        return nil
    }

    /// Warns about singletons that hold a `weakSingleton`, directly or through `unique` and
    /// `graph` intermediates (resolved from the same place): the weak instance then never dies.
    private func reportWeakCaptives() {
        var dependencies: [[ObjectIdentifier]: [ObjectIdentifier]] = [:]
        for observation in observations {
            let from = [observation.dependent, observation.start]
            if dependencies[from]?.contains(observation.entry) != true {
                dependencies[from, default: []].append(observation.entry)
            }
        }
        for (index, subject) in subjects.enumerated()
        where subject.entry.lifetime == .singleton || subject.entry.lifetime == .eagerSingleton {
            let root = ObjectIdentifier(subject.entry)
            let owner = ObjectIdentifier(subject.container)
            var queue: [(entry: ObjectIdentifier, start: ObjectIdentifier, path: [ObjectIdentifier])] = [
                (root, owner, [root])
            ]
            var visited: Set<[ObjectIdentifier]> = [[root, owner]]
            var reported: Set<ObjectIdentifier> = []
            while !queue.isEmpty {
                let item = queue.removeFirst()
                for next in dependencies[[item.entry, item.start]] ?? [] {
                    guard let entry = entries[next] else { continue }
                    let path = item.path + [next]
                    switch entry.lifetime {
                    case .weakSingleton where reported.insert(next).inserted:
                        let keys = path.compactMap { entries[$0]?.key.serviceKey }
                        let held = entry.key.serviceKey
                        let via =
                            keys.count > 2
                            ? " through \(keys.dropFirst().dropLast().map(\.description).joined(separator: " -> "))"
                            : ""
                        warn(
                            index,
                            "\(subject.entry.lifetime) holds weakSingleton \(held)\(via), so \(held) never dies while the \(subject.entry.lifetime) lives; make \(held) a singleton, or resolve it lazily",
                            path: keys)
                    case .unique, .graph:
                        if visited.insert([next, item.start]).inserted { queue.append((next, item.start, path)) }
                    default:
                        break
                    }
                }
            }
        }
    }

    private func reportUnusedSamples() {
        let used = Set(subjects.map(\.key))
        for key in options.samples.keys.sorted(by: { $0.serviceKey.description < $1.serviceKey.description })
        where !used.contains(key) {
            found.append(
                (
                    Int.max,
                    ValidationIssue(
                        severity: .warning, key: key.serviceKey, container: containers[0].name,
                        message:
                            "sample arguments supplied, but no container in the validated tree registers \(key.serviceKey)"
                    )
                ))
        }
    }
}

/// Records what resolves inside the sandbox asked for.
private final class Recorder: ResolutionObserver {
    private struct State {
        var observations: [DryRun.Observation] = []
        var seen: Set<DryRun.Observation> = []
        var entries: [ObjectIdentifier: AnyEntry] = [:]
    }

    private let state = Locked(State())

    func resolved(_ event: ResolutionEvent) {
        guard let dependent = event.dependent else { return }
        let observation = DryRun.Observation(
            dependent: ObjectIdentifier(dependent), start: ObjectIdentifier(event.start),
            entry: ObjectIdentifier(event.entry))
        state.withLock { state in
            state.entries[ObjectIdentifier(dependent)] = dependent
            state.entries[ObjectIdentifier(event.entry)] = event.entry
            if state.seen.insert(observation).inserted { state.observations.append(observation) }
        }
    }

    var observations: [DryRun.Observation] { state.withLock { $0.observations } }
    var entries: [ObjectIdentifier: AnyEntry] { state.withLock { $0.entries } }
}

/// Hands a non-Sendable value to a thread that the sender waits for.
private struct UncheckedBox<Value>: @unchecked Sendable {
    // @unchecked: the sender blocks until the receiving thread is done with the value.
    let value: Value
    init(_ value: Value) { self.value = value }
}
