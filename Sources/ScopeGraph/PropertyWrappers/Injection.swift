/// The projected value of `@Injected`, `@LazyInjected` and `@WeakInjected` (`$property`): where
/// the property resolves from, which a test can change before the property is read.
///
/// ```swift
/// final class CheckoutModel {
///     @LazyInjected var payments: PaymentService
/// }
///
/// let model = CheckoutModel()
/// model.$payments.container = testContainer   // before the first read
/// model.$payments.tag = "sandbox"
/// model.payments.charge(…)                    // resolved from testContainer, tag "sandbox"
/// ```
///
/// Changing `container` or `tag` forgets the instance the property holds, so the next read
/// resolves again with the new binding. Copies of a wrapper share one binding and one instance.
public struct Injection<T> {
    let box: InjectionBox<T>

    /// The container to resolve from; `nil` means `Container.current` at the time of resolving.
    /// Setting it forgets the instance the property holds.
    public var container: Container? {
        get { box.currentBinding.container }
        nonmutating set { box.rebind { $0.container = newValue } }
    }

    /// The tag to resolve; `nil` for the untagged registration. Setting it forgets the instance
    /// the property holds.
    public var tag: ServiceTag? {
        get { box.currentBinding.tag }
        nonmutating set { box.rebind { $0.tag = newValue } }
    }

    /// True once the property holds a resolved (or assigned) instance, until the next rebinding.
    /// A `@WeakInjected` property stays resolved after its instance is gone: it then reads `nil`.
    public var isResolved: Bool { box.isResolved }

    /// Points the property at another container and tag in one step, and forgets its instance.
    /// - Parameters:
    ///   - container: The container to resolve from; `nil` for `Container.current`.
    ///   - tag: The tag to resolve, or `nil`.
    public func rebind(to container: Container?, tag: ServiceTag? = nil) {
        box.rebind { binding in
            binding.container = container
            binding.tag = tag
        }
    }
}

extension Injection: Sendable where T: Sendable {}
