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
    var found: [(subject: Int, issue: ValidationIssue)] = []
    /// The issues found, in subject order (registration order), then the others.
    var issues: [ValidationIssue] {
        found.enumerated().sorted { ($0.element.subject, $0.offset) < ($1.element.subject, $1.offset) }.map(
            \.element.issue)
    }
    /// Entries seen anywhere (subtree or not), by identity, for the graph.
    var entries: [ObjectIdentifier: AnyEntry] = [:]
    /// Entry-level edges in the order first observed: dependent, then dependency.
    var edges: [(from: ObjectIdentifier, to: ObjectIdentifier)] = []
    /// Edges that take part in a constructor cycle.
    var cycleEdges: Set<[ObjectIdentifier]> = []
    /// Dependencies that no registration answers: the asking entry and the missing key.
    var missing: [(from: ObjectIdentifier, key: ServiceKey)] = []

    /// The subjects whose dry run failed, whether the issue is theirs or their cause's.
    var failedEntries: Set<ObjectIdentifier> {
        Set(failures.filter { !$0.isForward }.map { ObjectIdentifier(subjects[$0.subject].entry) })
    }

    let options: ValidationOptions
    var failures: [Failure] = []
    var observations: [Observation] = []
    /// Dynamic type of the instance each subject produced, by subject index.
    var producedTypes: [Int: Any.Type] = [:]

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

    /// Runs every subject in the sandbox, awaiting async factories and hopping to the main
    /// actor for main-actor ones (`validateAsync()`, `dependencyGraphAsync()`).
    func runAsync() async {
        let recorder = Recorder()
        let scope = ResolutionScope(parent: ResolutionScope.current, observer: recorder, isolatesCaches: true)
        await scope.runAsync {
            for index in subjects.indices { await dryRunAsync(index) }
        }
        collect(recorder)
        analyse()
    }

    private func runSandboxed(parent: ResolutionScope?) {
        let recorder = Recorder()
        let scope = ResolutionScope(parent: parent, observer: recorder, isolatesCaches: true)
        scope.run {
            for index in subjects.indices { dryRun(index) }
        }
        collect(recorder)
    }

    private func collect(_ recorder: Recorder) {
        observations = recorder.observations
        for (id, entry) in recorder.entries where entries[id] == nil { entries[id] = entry }
    }

    private func dryRun(_ index: Int) {
        guard let arguments = arguments(for: index) else { return }
        let subject = subjects[index]
        let request = Request(key: subject.key, start: subject.container, arguments: arguments.value)
        do {
            let value = try ResolutionContext.withContext { try subject.entry.produceAny(request, in: $0) }
            noteProduced(value, by: index)
        } catch {
            return noteFailure(error, of: index, key: subject.key, isForward: false)
        }
        for forward in subject.forwards {
            let request = Request(key: forward, start: subject.container, arguments: arguments.value)
            do {
                _ = try ResolutionContext.withContext { try Self.produce(forward.type, subject.entry, request, in: $0) }
            } catch {
                noteFailure(error, of: index, key: forward, isForward: true)
            }
        }
    }

    /// `dryRun`, in an async resolve.
    private func dryRunAsync(_ index: Int) async {
        guard let arguments = arguments(for: index) else { return }
        let subject = subjects[index]
        let request = Request(key: subject.key, start: subject.container, arguments: arguments.value)
        do {
            let value = try await ResolutionContext.withContextAsync(joining: nil) {
                try await subject.entry.produceAnyAsync(request, in: $0)
            }
            noteProduced(value, by: index)
        } catch {
            return noteFailure(error, of: index, key: subject.key, isForward: false)
        }
        for forward in subject.forwards {
            let request = Request(key: forward, start: subject.container, arguments: arguments.value)
            do {
                try await ResolutionContext.withContextAsync(joining: nil) {
                    try await Self.produceAsync(forward.type, subject.entry, request, in: $0)
                }
            } catch {
                noteFailure(error, of: index, key: forward, isForward: true)
            }
        }
    }

    /// The runtime arguments to dry-run `index`'s subject with (`nil` inside for none), or
    /// `nil` when it needs some and no sample was given (then warned).
    private func arguments(for index: Int) -> Carried<Arguments?>? {
        let subject = subjects[index]
        guard !subject.key.arguments.isEmpty else { return Carried(nil) }
        if let sample = options.samples[subject.key] { return Carried(sample) }
        let types = subject.key.arguments.map { String(describing: $0) }.joined(separator: ", ")
        warn(
            index,
            "skipped: needs runtime arguments (\(types)); supply sample values with ValidationOptions.provideArguments(for:_:) and validate(with:)"
        )
        return nil
    }

    private func noteProduced(_ value: Any, by index: Int) {
        producedTypes[index] = type(of: value)
        if subjects[index].entry.lifetime == .weakSingleton, !(type(of: value) is AnyClass) {
            warn(
                index,
                "weakSingleton of a value type (\(type(of: value))): it cannot be held weakly and behaves as unique; register it as singleton, or make it a class"
            )
        }
    }

    /// Records a failed dry run. A registration that only needs an async resolve (or the main
    /// actor) is not broken: it is reported as not run, with the way to check it.
    private func noteFailure(_ error: any Error, of index: Int, key: Key, isForward: Bool) {
        let failure = Self.resolutionError(error, key: key)
        switch failure.kind {
        case .requiresAsync:
            warn(
                index,
                "not run: \(failure.path.map(\.description).joined(separator: " -> ")) needs an async resolve (\(failure.key) has an async factory); validate with validateAsync(), and resolve with resolveAsync or after bootstrapAsync()",
                path: failure.path)
        case .requiresMainActor:
            warn(
                index,
                "not run: \(failure.path.map(\.description).joined(separator: " -> ")) needs the main actor (\(failure.key) has a main-actor factory); validate on the main actor or with validateAsync()",
                path: failure.path)
        default:
            failures.append(Failure(subject: index, error: failure, isForward: isForward))
        }
    }

    private static func produce<R>(_ type: R.Type, _ entry: AnyEntry, _ request: Request, in context: ResolutionContext)
        throws -> R
    {
        try entry.produce(request, as: R.self, in: context)
    }

    private static func produceAsync<R>(
        _ type: R.Type, _ entry: AnyEntry, _ request: Request, in context: ResolutionContext
    ) async throws {
        _ = try await entry.produceAsync(request, as: R.self, in: context)
    }

    private static func resolutionError(_ error: any Error, key: Key) -> ResolutionError {
        if let error = error as? ResolutionError { return error }
        return ResolutionError(kind: .factoryFailed(error), key: key.serviceKey, path: [key.serviceKey])
    }

    func warn(_ index: Int, _ message: String, path: [ServiceKey] = []) {
        let subject = subjects[index]
        found.append(
            (
                index,
                ValidationIssue(
                    severity: .warning, key: subject.key.serviceKey, container: subject.container.name,
                    message: message, path: path)
            ))
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
