extension Container: CustomStringConvertible {
    /// The subtree rooted here: each container's name, collaboration links and registrations
    /// (type, tag, lifetime, argument types, forwarded types), in a stable order.
    ///
    /// ```
    /// Container 'app'
    ///   Logger — singleton
    ///   Database[tag: "primary"] — singleton
    ///   Container 'checkout' (collaborates with: payments)
    ///     Checkout — graph
    /// ```
    public var description: String {
        var lines: [String] = []
        describe(into: &lines, depth: 0)
        return lines.joined(separator: "\n")
    }

    private func describe(into lines: inout [String], depth: Int) {
        let indent = String(repeating: "  ", count: depth)
        let links = collaborators.map(\.name)
        lines.append(
            indent + "Container '\(name)'"
                + (links.isEmpty ? "" : " (collaborates with: \(links.joined(separator: ", ")))"))
        for (key, entry) in registrationsInOrder(scope: nil) where entry.key == key {
            let forwards = entry.forwards.map(\.serviceKey.description)
            lines.append(
                indent + "  \(key.serviceKey) — \(entry.lifetime)"
                    + (forwards.isEmpty ? "" : " (implements \(forwards.joined(separator: ", ")))"))
        }
        for child in children { child.describe(into: &lines, depth: depth + 1) }
    }
}
