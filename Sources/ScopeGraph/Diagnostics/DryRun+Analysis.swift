/// What a dry run's observations and failures mean: the issues of `validate()` (failures
/// reduced to their causes, weak captives, unused samples) and the edges of the graph.
extension DryRun {

    func analyse() {
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
        case .containerShutDown:
            return "cannot resolve: \(path) reaches a container that has been shut down"
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
