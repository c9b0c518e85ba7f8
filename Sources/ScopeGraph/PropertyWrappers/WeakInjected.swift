/// A property resolved from a container on its first read and held weakly: it does not keep
/// the instance alive, and reads `nil` once the instance's last owner lets it go.
///
/// ```swift
/// final class CheckoutView {
///     @WeakInjected var coordinator: CheckoutCoordinator?
/// }
/// ```
///
/// The instance is resolved once, on the first read (from `Container.current` when no container
/// is given); the property does not resolve again when it is gone, so a `unique` registration
/// gives an instance that nothing but the reader holds. Use it for objects someone else owns: a
/// singleton, or a parent in a child-to-parent link. A value-type instance has no lifetime to
/// observe and is kept as a copy. Rebinding through the projected value forgets the instance, so
/// the next read resolves again.
///
/// On failure the program stops with a message naming the property's declaration, the type it
/// wanted and the full `ResolutionError` description, as `@Injected` does, and that includes a
/// missing registration: the property's `nil` means "its instance is gone", not "nothing is
/// registered", so a wiring mistake is not hidden.
@propertyWrapper
public struct WeakInjected<T> {
    let box: InjectionBox<T>

    /// Declares the property; nothing is resolved until the first read.
    /// - Parameters:
    ///   - tag: The tag to resolve; `nil` for the untagged registration.
    ///   - container: The container to resolve from; `nil` means `Container.current` at the
    ///     first read.
    ///   - file: Filled in by the compiler: where the property is declared, for error messages.
    ///   - line: Filled in by the compiler.
    ///   - function: Filled in by the compiler: the enclosing declaration.
    ///   - filePath: Filled in by the compiler: where to read the property's name from, if its
    ///     declaration must be reported.
    public init(
        tag: ServiceTag? = nil, from container: Container? = nil,
        file: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
        filePath: StaticString = #filePath
    ) {
        let site = InjectionSite(
            wrapper: "@WeakInjected", file: file, line: line, function: function, filePath: filePath)
        box = InjectionBox(tag: tag, container: container, holdsWeakly: true, site: site)
    }

    /// The instance while something else keeps it alive, `nil` after. Resolved on the first
    /// read. Setting it holds the new instance weakly; setting `nil` makes the property read
    /// `nil` until it is rebound.
    public var wrappedValue: T? {
        get { box.value() }
        nonmutating set { box.assign(newValue) }
    }

    /// The binding: `$property.container` and `$property.tag` rebind the property.
    public var projectedValue: Injection<T> { Injection(box: box) }
}

extension WeakInjected: Sendable where T: Sendable {}
