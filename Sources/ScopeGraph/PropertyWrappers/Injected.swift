/// A property resolved from a container when its owner is created.
///
/// ```swift
/// final class CheckoutModel {
///     @Injected var payments: PaymentService
///     @Injected(tag: "audit") var log: Logger
///     @Injected(from: checkoutContainer) var cart: Cart
/// }
/// ```
///
/// Without a container the property resolves from `Container.current`: `Container.shared`,
/// unless the creating task bound another with `Container.$current.withValue(container) { … }`.
/// After a rebinding through the projected value (`model.$payments.container = other`), the
/// next read resolves again from the new binding.
///
/// A property wrapper cannot throw: when the resolve fails the program stops with a message
/// that names the property's declaration (file, line, enclosing type), the type it wanted, and
/// the full `ResolutionError` description. Use `container.resolve` where failure is expected.
///
/// An optional property is the exception for a service that may be absent: with nothing
/// registered (neither `Optional<T>` nor `T`), `@Injected var analytics: Analytics?` is `nil`
/// instead of stopping the program, as `resolveIfRegistered` would give. A registration that is
/// found but fails (a throwing factory, a missing dependency) still stops it.
@propertyWrapper
public struct Injected<T> {
    let box: InjectionBox<T>

    /// Resolves the property now, from `container` or `Container.current`.
    /// - Parameters:
    ///   - tag: The tag to resolve; `nil` for the untagged registration (no fallback between them).
    ///   - container: The container to resolve from; `nil` means `Container.current`.
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
        let site = InjectionSite(wrapper: "@Injected", file: file, line: line, function: function, filePath: filePath)
        box = InjectionBox(tag: tag, container: container, holdsWeakly: false, site: site)
        _ = box.value()
    }

    /// The resolved instance. Setting it replaces the instance (for example with a test double).
    public var wrappedValue: T {
        get { box.value()! }
        nonmutating set { box.assign(newValue) }
    }

    /// The binding: `$property.container` and `$property.tag` rebind the property.
    public var projectedValue: Injection<T> { Injection(box: box) }
}

extension Injected: Sendable where T: Sendable {}
