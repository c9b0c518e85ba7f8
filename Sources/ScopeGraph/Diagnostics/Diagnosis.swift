/// Why a key was not found, and what the user probably meant: the one place that words the
/// suggestions of `notRegistered` and `argumentMismatch` errors (and the remedy of a
/// constructor cycle).
///
/// Close matches, in this order: the same type and tag with other argument types (which makes
/// the error an `argumentMismatch`); the same type under another tag; the same type registered
/// in a container the lookup does not visit (a child of the start, or an unlinked sibling);
/// a different type with the same name; a type with a similar name; a type whose name contains
/// the requested one (an implementation registered under its own type only). With none, how to
/// register it.
struct Diagnosis {
    static let maximumSuggestions = 8

    let kind: ResolutionError.Kind
    let searched: [String]
    let suggestions: [String]

    init(key: Key, start: Container, scope: ResolutionScope?, topLevelStart: Container?) {
        let order = start.lookupOrder()
        searched = order.map(\.name)
        var suggestions: [String] = []
        var mismatch = false
        let requested = key.serviceKey
        for container in order {
            // The exact key (registered while the lookup walked) is no mismatch.
            for other in container.registeredKeysInOrder(scope: scope) where other.type == key.type && other != key {
                if other.tag == key.tag {
                    mismatch = true
                    suggestions.append(
                        other.arguments.isEmpty
                            ? "'\(container.name)' registers \(other.serviceKey) without runtime arguments: resolve it without arguments."
                            : "'\(container.name)' registers \(other.serviceKey): resolve it with arguments of exactly those types, in that order."
                    )
                } else if other.sameArguments(as: key) {
                    suggestions.append(
                        "'\(container.name)' registers \(other.serviceKey): there is no fallback between tags; ask for \(Self.describe(other.tag)), or register \(requested)."
                    )
                } else {
                    suggestions.append(
                        "'\(container.name)' registers \(other.serviceKey), with another tag and other runtime arguments: ask for \(Self.describe(other.tag)) \(other.arguments.isEmpty ? "without runtime arguments" : "with arguments of exactly those types, in that order"), or register \(requested)."
                    )
                }
            }
        }
        // The same type registered where this lookup does not look.
        let visited = Set(order.map(ObjectIdentifier.init))
        var trees = [start.root]
        if let other = topLevelStart?.root, other !== start.root { trees.append(other) }
        let everywhere = trees.flatMap { $0.subtree() }
        let outside = everywhere.filter { !visited.contains(ObjectIdentifier($0)) }
        for container in outside {
            for other in container.registeredKeysInOrder(scope: scope) where other.type == key.type {
                suggestions.append(Self.unvisited(container, registers: other, requested: key, start: start))
            }
        }
        // Types named alike: the same name from another module, or a near miss.
        var named: Set<String> = []
        let wanted = String(describing: key.type)
        for container in order + outside {
            for other in container.registeredKeysInOrder(scope: scope) where other.type != key.type {
                let name = String(describing: other.type)
                guard named.insert(name).inserted else { continue }
                if name == wanted {
                    suggestions.append(
                        "'\(container.name)' registers a different type that is also named \(name) (from another module, or nested in another type): check which one is asked for."
                    )
                } else if Self.isClose(name, wanted) {
                    suggestions.append("did you mean \(name)? '\(container.name)' registers \(other.serviceKey).")
                } else if wanted.count >= 3, name.contains(wanted) {
                    // `LiveAPIClient` for `APIClient`: most often an implementation registered
                    // under its own type only.
                    suggestions.append(
                        "'\(container.name)' registers \(other.serviceKey): if it is meant to answer for \(wanted), add .implements(\(wanted).self) to that registration."
                    )
                }
            }
        }
        kind = mismatch ? .argumentMismatch : .notRegistered
        if suggestions.isEmpty {
            suggestions.append(
                "register it with \(order.first?.name ?? "the container").register(\(key.type).self\(key.tag.map { ", tag: \($0)" } ?? "")) { r in … }."
            )
        }
        // In a large tree a type may be registered under many tags: keep the error readable.
        if suggestions.count > Self.maximumSuggestions {
            let hidden = suggestions.count - Self.maximumSuggestions + 1
            suggestions = Array(suggestions.prefix(Self.maximumSuggestions - 1))
            suggestions.append(
                "… and \(hidden) more close matches: print the container tree (its `description`) to see them all.")
        }
        self.suggestions = suggestions
    }

    /// The `.circularDependency` error for `key`, requested again at the end of `path`, with
    /// its remedy.
    static func cycleError(_ key: Key, path: [Key]) -> ResolutionError {
        let keys = path.map(\.serviceKey)
        return ResolutionError(
            kind: .circularDependency, key: key.serviceKey, path: keys, suggestions: [cycleRemedy(for: keys)])
    }

    /// The remedy for a constructor cycle whose path ends with the repeated key: the
    /// registration that asked for it last can take it after construction instead.
    private static func cycleRemedy(for path: [ServiceKey]) -> String {
        guard let repeated = path.last else { return "" }
        guard path.count >= 2, path[path.count - 2] != repeated else {
            return
                "\(repeated)'s factory asks for \(repeated) itself, which does not exist before that factory returns; to refer to the instance being built, set the property in an onResolved block on its registration."
        }
        let asker = path[path.count - 2]
        return
            "to break the cycle, let \(asker) get \(repeated) after construction: build it without \(repeated), and set the property in an onResolved block on its registration, .onResolved { r, instance in instance.<property> = try r.resolve() } (see Docs/CircularDependencies.md)."
    }

    /// A registration of the requested type in a container the lookup did not visit.
    private static func unvisited(_ container: Container, registers other: Key, requested key: Key, start: Container)
        -> String
    {
        let found =
            "'\(container.name)' registers \(other.serviceKey), but a lookup starting at '\(start.name)' does not visit it"
        guard other == key else { return found + " (and the tag or argument types differ too)." }
        if container.isDescendant(of: start) {
            return found
                + ": lookups never go down to children; register \(key.serviceKey) in '\(start.name)' or an ancestor. (A singleton resolves its dependencies from the container that owns it, never from the child that asked; a graph or unique dependent would see the child's registrations.)"
        }
        return found
            + ": link them with \(start.name).collaborate(with: \(container.name)), or move \(key.serviceKey) to a common ancestor."
    }

    private static func describe(_ tag: ServiceTag?) -> String {
        tag.map { "tag \($0)" } ?? "it without a tag"
    }

    /// True for names a typo apart: at most one edit per four characters (at least one).
    private static func isClose(_ lhs: String, _ rhs: String) -> Bool {
        let (a, b) = (Array(lhs.lowercased()), Array(rhs.lowercased()))
        guard min(a.count, b.count) >= 3 else { return false }
        let limit = max(1, min(a.count, b.count) / 4)
        guard abs(a.count - b.count) <= limit else { return false }
        if a == b { return true }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count] <= limit
    }
}

extension Container {
    /// True when `ancestor` is this container's parent, grandparent, …
    func isDescendant(of ancestor: Container) -> Bool {
        var node = parent
        while let current = node {
            if current === ancestor { return true }
            node = current.parent
        }
        return false
    }
}
