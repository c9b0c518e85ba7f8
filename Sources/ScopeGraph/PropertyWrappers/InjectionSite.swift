import Foundation

/// Where a property wrapper was declared, captured by its initializer's defaulted arguments,
/// so a failure can say which property wanted what.
struct InjectionSite: Sendable {
    /// The wrapper's attribute, `@Injected`, `@LazyInjected` or `@WeakInjected`.
    let wrapper: String
    /// `#fileID` of the declaration.
    let file: StaticString
    /// `#line` of the declaration.
    let line: UInt
    /// `#function` at the declaration: the enclosing type for a stored property, the enclosing
    /// function for a local variable or an explicit `_property = …` assignment.
    let function: StaticString
    /// `#filePath` of the declaration: the source file, read for the property's name when a
    /// failure is reported.
    let filePath: StaticString

    /// How a message names the property: `@Injected property 'name'`, the name read from the
    /// declaration when its source file is present (as in development and in tests), else
    /// `@Injected property`.
    var described: String {
        guard let name = propertyName else { return "\(wrapper) property" }
        return "\(wrapper) property '\(name)'"
    }

    /// The name the declaration at `filePath`:`line` gives its property: the identifier after
    /// `var` or `let` following the wrapper's attribute, on that line or, when the attribute
    /// stands on a line of its own (`@Injected(tag: "x")`), on one of the next two. Best effort,
    /// read only when a failure is reported; `nil` without the file, and for a wrapper made by
    /// an explicit initializer call.
    var propertyName: String? {
        guard line > 0, let source = try? String(contentsOfFile: "\(filePath)", encoding: .utf8) else { return nil }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let first = Int(line) - 1
        guard first < lines.count, let attribute = lines[first].range(of: wrapper) else { return nil }
        let rest = lines[first][attribute.upperBound...]
        if let next = rest.first, next == "_" || next.isLetter || next.isNumber { return nil }
        if let name = Self.declaredName(in: rest) { return name }
        for text in lines[(first + 1)..<min(first + 3, lines.count)] {
            if let name = Self.declaredName(in: text) { return name }
            guard text.drop(while: \.isWhitespace).first == "@" else { return nil }
        }
        return nil
    }

    /// The identifier after the first `var` or `let` word of `line`, string literals skipped.
    static func declaredName(in line: Substring) -> String? {
        var word = ""
        var inString = false
        var afterKeyword = false
        for character in line + " " {
            if character == "\"" {
                inString.toggle()
            } else if !inString, character == "_" || character.isLetter || character.isNumber {
                word.append(character)
                continue
            }
            if afterKeyword, !word.isEmpty { return word }
            if word == "var" || word == "let" { afterKeyword = true }
            word = ""
        }
        return nil
    }
}

/// Words the fatal error of a property wrapper that could not resolve its service.
///
/// Kept apart from the `fatalError` call so tests can check the message without stopping the
/// process.
/// - Parameters:
///   - site: Where the wrapper was declared.
///   - type: The type the property wanted.
///   - tag: The tag it asked for.
///   - container: The name of the container the resolve started from.
///   - error: What the resolve threw; a `ResolutionError` is printed in full.
/// - Returns: A multi-line message: the property's place and context, the key wanted, then the
///   error's description.
func injectionFailureMessage(
    site: InjectionSite, type: Any.Type, tag: ServiceTag?, container: String, error: any Error
) -> String {
    let wanted = ServiceKey(typeName: String(describing: type), tag: tag)
    return """
        \(site.described) declared at \(site.file):\(site.line) (in \(site.function)) could not \
        resolve \(wanted) from container '\(container)'.
        \(error)
        """
}

/// Words the fatal error of a lazy or weak property read again, on the same thread, while its
/// own first resolve is still running (a factory that reads the property it is building for).
/// - Parameters:
///   - site: Where the wrapper was declared.
///   - type: The type the property wanted.
/// - Returns: A one-paragraph message naming the property and the type.
func reentrantInjectionMessage(site: InjectionSite, type: Any.Type) -> String {
    """
    \(site.described) declared at \(site.file):\(site.line) (in \(site.function)) was read while \
    its own resolve of \(String(describing: type)) was still running on this thread: a factory reads \
    the property it is building for. Break the cycle with onResolved, or read the property later.
    """
}
