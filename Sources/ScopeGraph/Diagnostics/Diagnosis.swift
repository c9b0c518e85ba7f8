/// Why a key was not found, and what the user probably meant: the one place that words the
/// suggestions of `notRegistered` and `argumentMismatch` errors.
struct Diagnosis {
    let kind: ResolutionError.Kind
    let searched: [String]
    let suggestions: [String]

    init(key: Key, start: Container, scope: ResolutionScope?, topLevelStart: Container?) {
        let order = start.lookupOrder()
        searched = order.map(\.name)
        var suggestions: [String] = []
        var mismatch = false
        let requested = Self.describe(key.tag)
        for container in order {
            for (other, _) in container.registrationsInOrder(scope: scope) where other.type == key.type {
                if other.tag == key.tag {
                    mismatch = true
                    let arguments = other.arguments.isEmpty
                        ? "no runtime arguments" : "arguments (\(other.arguments.map { String(describing: $0) }.joined(separator: ", ")))"
                    suggestions.append(
                        "'\(container.name)' registers \(other.serviceKey) with \(arguments); resolve it with exactly those argument types.")
                } else if other.sameArguments(as: key) || other.arguments.isEmpty {
                    suggestions.append(
                        "'\(container.name)' registers \(key.type) \(Self.describe(other.tag)); there is no fallback between tags: ask for that tag, or register \(requested).")
                }
            }
        }
        // The same key registered where this lookup does not look.
        let visited = Set(order.map(ObjectIdentifier.init))
        var trees = [start.root]
        if let other = topLevelStart?.root, other !== start.root { trees.append(other) }
        let outside = trees.flatMap { $0.subtree() }.filter { !visited.contains(ObjectIdentifier($0)) }
        for container in outside where container.registrationsInOrder(scope: scope).contains(where: { $0.key == key }) {
            suggestions.append(
                "'\(container.name)' registers \(key.serviceKey), but a lookup starting at '\(start.name)' does not visit it; register it in '\(start.name)' or one of its ancestors, or link them with \(start.name).collaborate(with: \(container.name)). (Singletons resolve their dependencies from the container that owns them, never from the child that asked.)")
        }
        kind = mismatch ? .argumentMismatch : .notRegistered
        if suggestions.isEmpty {
            suggestions.append("register it with \(order.first?.name ?? "the container").register(\(key.type).self\(key.tag.map { ", tag: \($0)" } ?? "")) { r in … }.")
        }
        self.suggestions = suggestions
    }

    private static func describe(_ tag: ServiceTag?) -> String {
        tag.map { "with tag \($0)" } ?? "without a tag"
    }
}
