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
        \(site.wrapper) property declared at \(site.file):\(site.line) (in \(site.function)) could not \
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
    \(site.wrapper) property declared at \(site.file):\(site.line) (in \(site.function)) was read while \
    its own resolve of \(String(describing: type)) was still running on this thread: a factory reads \
    the property it is building for. Break the cycle with onResolved, or read the property later.
    """
}
