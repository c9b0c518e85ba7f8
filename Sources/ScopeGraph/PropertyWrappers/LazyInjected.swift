/// A property resolved from a container on its first read, then kept.
///
/// ```swift
/// final class CheckoutModel {
///     @LazyInjected var payments: PaymentService
///     @LazyInjected(tag: "audit", from: appContainer) var log: Logger
/// }
///
/// // In a test, before the first read:
/// model.$payments.container = testContainer
/// ```
///
/// Without a container the property resolves from `Container.current` as it is at the first
/// read. Reads from several threads at once resolve once: one thread resolves, the others wait
/// for its instance. Rebinding the container or tag through the projected value forgets the
/// instance, so the next read resolves again.
///
/// On failure the program stops with a message naming the property's declaration, the type it
/// wanted and the full `ResolutionError` description, as `@Injected` does. As there, an
/// optional property (`@LazyInjected var analytics: Analytics?`) reads `nil` when nothing is
/// registered for it, and still stops when a registration is found but fails.
@propertyWrapper
public struct LazyInjected<T> {
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
            wrapper: "@LazyInjected", file: file, line: line, function: function, filePath: filePath)
        box = InjectionBox(tag: tag, container: container, holdsWeakly: false, site: site)
    }

    /// The instance, resolved on the first read. Setting it replaces the instance.
    public var wrappedValue: T {
        get { box.value()! }
        nonmutating set { box.assign(newValue) }
    }

    /// The binding: `$property.container` and `$property.tag` rebind the property.
    public var projectedValue: Injection<T> { Injection(box: box) }
}

extension LazyInjected: Sendable where T: Sendable {}
