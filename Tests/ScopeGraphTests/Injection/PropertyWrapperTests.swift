import Dispatch
import Foundation
import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

private protocol Greeter: AnyObject, Sendable {
    var name: String { get }
}

private final class NamedGreeter: Greeter {
    let name: String
    init(_ name: String) { self.name = name }
}

/// Counts factory calls from any thread.
private final class CallCounter: Sendable {
    private let calls = Locked(0)
    var value: Int { calls.withLock { $0 } }
    func increment() { calls.withLock { $0 += 1 } }
}

/// A container whose `Greeter` is named after it, counting its factory calls.
private func greeterContainer(
    _ name: String, lifetime: Lifetime = .unique, tag: ServiceTag? = nil, counter: CallCounter = CallCounter()
) -> Container {
    let container = Container(name: name)
    container.register(Greeter.self, tag: tag, lifetime: lifetime) { _ in
        counter.increment()
        return NamedGreeter(name)
    }
    return container
}

/// A struct, so its memberwise initializer can take the wrapper: a class that assigned
/// `_greeter = Injected(from: c)` in its init would first resolve the declaration's default.
private struct EagerHolder {
    @Injected var greeter: Greeter
}

private final class LazyHolder {
    @LazyInjected var greeter: Greeter
    @LazyInjected(tag: "formal") var formal: Greeter
}

/// A wrapper whose attribute stands on a line of its own, with a tag.
private final class SplitDeclaration {
    @LazyInjected(tag: "var formal", from: Container(name: "split"))
    var formalGreeter: Greeter
}

/// An `@Injected` stored property with nothing registered for it.
private final class MissingMailer {
    @Injected(from: Container(name: "mail")) var mailer: Greeter
}

private struct WeakHolder {
    @WeakInjected var greeter: Greeter?
}

/// A value-type model holding all three wrappers, to be copied.
private struct CopyableModel {
    @Injected var eager: Greeter
    @LazyInjected var lazy: Greeter
    @WeakInjected var weak: Greeter?
}

@Suite struct PropertyWrapperTests {
    // MARK: @Injected

    @Test func injectedResolvesFromAnExplicitContainer() {
        let holder = EagerHolder(greeter: Injected(from: greeterContainer("explicit")))
        #expect(holder.greeter.name == "explicit")
    }

    @Test func injectedResolvesFromTheBoundCurrentContainerAtInit() {
        let holder = Container.$current.withValue(greeterContainer("bound")) { EagerHolder() }
        #expect(holder.greeter.name == "bound")
        #expect(holder.$greeter.container == nil)
    }

    @Test func injectedResolvesAgainAfterRebindingThroughItsProjectedValue() {
        let holder = EagerHolder(greeter: Injected(from: greeterContainer("first")))
        #expect(holder.greeter.name == "first")
        holder.$greeter.container = greeterContainer("second")
        #expect(!holder.$greeter.isResolved)
        #expect(holder.greeter.name == "second")
    }

    // MARK: @LazyInjected

    @Test func lazyResolvesFromAnExplicitContainer() {
        let wrapper = LazyInjected<Greeter>(from: greeterContainer("explicit"))
        #expect(wrapper.wrappedValue.name == "explicit")
    }

    @Test func lazyResolvesFromTheCurrentContainerAtFirstReadNotAtInit() {
        let holder = LazyHolder()
        let greeter = Container.$current.withValue(greeterContainer("bound")) { holder.greeter }
        #expect(greeter.name == "bound")
    }

    @Test func lazyResolvesAfterRebindingThroughItsProjectedValue() {
        let holder = LazyHolder()
        holder.$greeter.container = greeterContainer("test")
        #expect(holder.greeter.name == "test")
    }

    @Test func lazyUsesItsTagAndARebindingOfTheTag() {
        let container = greeterContainer("formal", tag: "formal")
        container.register(Greeter.self, tag: "casual") { _ in NamedGreeter("casual") }
        let holder = LazyHolder()
        holder.$formal.container = container
        #expect(holder.formal.name == "formal")
        holder.$formal.tag = "casual"
        #expect(holder.formal.name == "casual")
        #expect(holder.$formal.tag == "casual")
    }

    @Test func lazyResolvesOnlyOnFirstAccess() {
        let counter = CallCounter()
        let wrapper = LazyInjected<Greeter>(from: greeterContainer("lazy", counter: counter))
        #expect(counter.value == 0)
        #expect(!wrapper.projectedValue.isResolved)
        let first = wrapper.wrappedValue
        let second = wrapper.wrappedValue
        #expect(counter.value == 1)
        #expect(first === second)
        #expect(wrapper.projectedValue.isResolved)
    }

    @Test func lazyCopiesShareOneInstance() {
        let counter = CallCounter()
        let wrapper = LazyInjected<Greeter>(from: greeterContainer("copies", counter: counter))
        let copy = wrapper
        #expect(copy.wrappedValue === wrapper.wrappedValue)
        #expect(counter.value == 1)
    }

    // MARK: Copies

    /// A struct holding `@LazyInjected` can be copied freely: the copies resolve once between
    /// them, whichever is read first, and an assignment through one is what the other reads.
    @Test func copiesOfALazyWrapperResolveOnceBetweenThem() {
        let counter = CallCounter()
        let container = greeterContainer("copies", counter: counter)
        let model = CopyableModel(
            eager: Injected(from: container), lazy: LazyInjected(from: container), weak: WeakInjected(from: container))
        let baseline = counter.value  // `@Injected` resolved when the model was made
        let copy = model
        #expect(!model.$lazy.isResolved)
        let first = copy.lazy  // the copy is read first
        #expect(model.$lazy.isResolved, "the original knows its copy resolved")
        #expect(model.lazy === first)
        #expect(counter.value == baseline + 1)
        let double = NamedGreeter("double")
        model.lazy = double
        #expect(copy.lazy === double)
        #expect(counter.value == baseline + 1)
    }

    /// Rebinding through one copy's projected value rebinds them all: every copy reports the
    /// new binding, forgets the instance, and reads the one instance resolved from there.
    @Test func copiesOfAWrapperShareOneBinding() {
        let firstCounter = CallCounter()
        let secondCounter = CallCounter()
        let first = greeterContainer("first", lifetime: .singleton, counter: firstCounter)
        let second = greeterContainer("second", tag: "formal", counter: secondCounter)
        let model = CopyableModel(
            eager: Injected(from: first), lazy: LazyInjected(from: first), weak: WeakInjected(from: first))
        let copy = model
        #expect(model.eager.name == "first")
        #expect(model.lazy.name == "first")
        #expect(model.weak?.name == "first")
        #expect(firstCounter.value == 1, "one singleton, read by all three wrappers")

        copy.$eager.rebind(to: second, tag: "formal")
        copy.$lazy.container = second
        copy.$lazy.tag = "formal"
        copy.$weak.rebind(to: second, tag: "formal")
        for projection in [model.$eager, model.$lazy, model.$weak] {
            #expect(projection.container === second, "the original sees the copy's rebinding")
            #expect(projection.tag == "formal")
            #expect(!projection.isResolved, "the rebinding forgot the instance for every copy")
        }

        let eager = model.eager
        let lazy = copy.lazy
        #expect(eager.name == "second")
        #expect(lazy.name == "second")
        #expect(copy.eager === eager)
        #expect(model.lazy === lazy)
        // `unique` there: one resolve per wrapper, not per copy.
        #expect(secondCounter.value == 2)
    }

    /// Copies of a `@WeakInjected` wrapper hold one weak reference: a read through either
    /// copy returns the instance the other resolved, and once it is gone, it is gone for both.
    @Test func copiesOfAWeakWrapperShareOneWeakReference() throws {
        let counter = CallCounter()
        let container = greeterContainer("weak", lifetime: .singleton, counter: counter)
        let wrapper = WeakInjected<Greeter>(from: container)
        let copy = wrapper
        do {
            let greeter = try #require(copy.wrappedValue)
            #expect(wrapper.wrappedValue === greeter)
            #expect(counter.value == 1)
            container.removeAll()
            #expect(wrapper.wrappedValue === greeter, "kept alive by the test")
        }
        #expect(wrapper.wrappedValue == nil)
        #expect(copy.wrappedValue == nil)
        #expect(counter.value == 1, "neither copy resolved again")
    }

    @Test func lazyReadsFromManyThreadsResolveOnce() {
        let counter = CallCounter()
        let container = Container(name: "threads")
        container.register(Greeter.self, lifetime: .unique) { _ in
            counter.increment()
            Thread.sleep(forTimeInterval: 0.02)  // widen the window in which other readers arrive
            return NamedGreeter("threads")
        }
        let wrapper = LazyInjected<Greeter>(from: container)
        let readers = 8
        let seen = Locked<[ObjectIdentifier]>([])
        let group = DispatchGroup()
        for _ in 0..<readers {
            DispatchQueue.global().async(group: group) {
                let greeter = wrapper.wrappedValue
                seen.withLock { $0.append(ObjectIdentifier(greeter)) }
            }
        }
        guard group.wait(timeout: .now() + 10) == .success else {
            Issue.record("concurrent first reads did not finish within 10 s")
            return
        }
        #expect(counter.value == 1)
        #expect(seen.withLock { Set($0).count } == 1)
        #expect(seen.withLock { $0.count } == readers)
    }

    @Test func lazyAssignmentReplacesTheInstanceWithoutResolving() {
        let counter = CallCounter()
        let wrapper = LazyInjected<Greeter>(from: greeterContainer("unused", counter: counter))
        let double = NamedGreeter("double")
        wrapper.wrappedValue = double
        #expect(wrapper.wrappedValue === double)
        #expect(counter.value == 0)
    }

    /// Assigning an `@Injected` property replaces the instance it resolved at creation.
    @Test func injectedAssignmentReplacesTheResolvedInstance() {
        let counter = CallCounter()
        let wrapper = Injected<Greeter>(from: greeterContainer("real", counter: counter))
        #expect(wrapper.wrappedValue.name == "real")
        let double = NamedGreeter("double")
        wrapper.wrappedValue = double
        #expect(wrapper.wrappedValue === double)
        #expect(wrapper.projectedValue.isResolved)
        #expect(counter.value == 1, "only the resolve at creation")
    }

    /// Assigning a `@WeakInjected` property holds the object weakly without resolving; when it
    /// goes, or when `nil` is assigned, the property reads `nil` and does not resolve again.
    @Test func weakAssignmentHoldsTheObjectWeaklyAndNilStaysNil() {
        let counter = CallCounter()
        let wrapper = WeakInjected<Greeter>(from: greeterContainer("unused", lifetime: .singleton, counter: counter))
        var double: NamedGreeter? = NamedGreeter("double")
        wrapper.wrappedValue = double
        #expect(wrapper.wrappedValue === double)
        double = nil
        #expect(wrapper.wrappedValue == nil, "the property kept the assigned object alive")
        let other = NamedGreeter("other")
        wrapper.wrappedValue = other
        #expect(wrapper.wrappedValue === other)
        wrapper.wrappedValue = nil
        #expect(wrapper.wrappedValue == nil)
        #expect(counter.value == 0, "an assigned property never resolves")
    }

    // MARK: @WeakInjected

    @Test func weakResolvesFromAnExplicitContainer() {
        let container = greeterContainer("explicit", lifetime: .singleton)
        let wrapper = WeakInjected<Greeter>(from: container)
        let kept = try? container.resolve(Greeter.self)
        #expect(wrapper.wrappedValue === kept)
    }

    @Test func weakResolvesFromTheCurrentContainerAtFirstRead() {
        let container = greeterContainer("bound", lifetime: .singleton)
        let holder = WeakHolder()
        let name = Container.$current.withValue(container) { holder.greeter?.name }
        #expect(name == "bound")
    }

    @Test func weakResolvesAfterRebindingThroughItsProjectedValue() {
        let container = greeterContainer("test", lifetime: .singleton)
        let holder = WeakHolder()
        holder.$greeter.container = container
        #expect(holder.greeter?.name == "test")
    }

    @Test func weakReleasesTheInstanceWhenItsOwnerLetsGo() throws {
        let counter = CallCounter()
        let container = greeterContainer("owner", lifetime: .singleton, counter: counter)
        let wrapper = WeakInjected<Greeter>(from: container)
        weak var observed: Greeter?
        do {
            let greeter = try #require(wrapper.wrappedValue)
            observed = greeter
            #expect(greeter === (try container.resolve(Greeter.self)))
        }
        #expect(observed != nil)  // the container's singleton keeps it alive
        container.removeAll()
        #expect(observed == nil)  // the wrapper did not keep it alive
        #expect(wrapper.wrappedValue == nil)
        #expect(counter.value == 1)  // and did not resolve again
    }

    /// `@WeakInjected` keeps a value type (which cannot be held weakly) as a copy: the first
    /// read resolves it, later reads return the copy without resolving again.
    @Test func weakKeepsAValueTypeAsACopy() {
        let container = Container(name: "values")
        let resolves = Counter()
        container.register(Int.self) { _ in 41 + resolves.increment() }
        let wrapper = WeakInjected<Int>(from: container)
        #expect(resolves.value == 0, "resolved lazily, on first read")
        #expect(wrapper.wrappedValue == 42)
        #expect(wrapper.wrappedValue == 42)
        #expect(resolves.value == 1)
    }

    // MARK: Failure messages

    @Test(arguments: ["@LazyInjected", "@WeakInjected"])
    func failureMessageNamesThePropertyTheTypeAndTheFullError(wrapperName: String) throws {
        let empty = Container(name: "empty")
        empty.register(Greeter.self, tag: "casual") { _ in NamedGreeter("casual") }
        let (site, line): (InjectionSite, UInt) =
            wrapperName == "@LazyInjected"
            ? (LazyInjected<Greeter>(tag: "formal", from: empty).box.site, #line)
            : (WeakInjected<Greeter>(tag: "formal", from: empty).box.site, #line)
        let error = try #require(throws: ResolutionError.self) { try empty.resolve(Greeter.self, tag: "formal") }

        let message = injectionFailureMessage(
            site: site, type: Greeter.self, tag: "formal", container: "empty", error: error)

        #expect(
            message.hasPrefix("\(wrapperName) property declared at ScopeGraphTests/PropertyWrapperTests.swift:\(line)"))
        #expect(message.contains("(in failureMessageNamesThePropertyTheTypeAndTheFullError(wrapperName:))"))
        #expect(message.contains("could not resolve Greeter[tag: \"formal\"] from container 'empty'."))
        #expect(message.hasSuffix(error.description))
        #expect(message.contains("nothing is registered for Greeter[tag: \"formal\"]"))
        #expect(message.contains("searched: empty"))
    }

    #if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)  // where exit tests run
    @Test func aFailingWrapperStopsTheProcessWithItsMessage() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let empty = Container(name: "empty")
            _ = LazyInjected<Greeter>(tag: "formal", from: empty).wrappedValue
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(output.contains("@LazyInjected property declared at ScopeGraphTests/PropertyWrapperTests.swift:"))
        #expect(output.contains("could not resolve Greeter[tag: \"formal\"] from container 'empty'."))
        #expect(output.contains("ResolutionError: nothing is registered for Greeter[tag: \"formal\"]."))
    }
    #endif

    @Test func failureMessageOfAStoredPropertyNamesItsEnclosingType() {
        let site = LazyHolder().$greeter.box.site
        let error = ResolutionError(kind: .notRegistered, key: ServiceKey(typeName: "Greeter"), path: [])
        let message = injectionFailureMessage(
            site: site, type: Greeter.self, tag: nil, container: "shared", error: error)
        #expect(
            message.hasPrefix(
                "@LazyInjected property 'greeter' declared at ScopeGraphTests/PropertyWrapperTests.swift:"))
        #expect(message.contains("(in LazyHolder)"))
        #expect(message.contains("could not resolve Greeter from container 'shared'."))
    }

    @Test func reentrantReadMessageNamesThePropertyAndTheType() {
        let site = LazyHolder().$greeter.box.site
        let message = reentrantInjectionMessage(site: site, type: Greeter.self)
        #expect(
            message.hasPrefix(
                "@LazyInjected property 'greeter' declared at ScopeGraphTests/PropertyWrapperTests.swift:"))
        #expect(message.contains("its own resolve of Greeter"))
    }

    @Test func theNameIsReadFromTheDeclarationEvenWhenTheAttributeStandsAlone() {
        #expect(SplitDeclaration().$formalGreeter.box.site.propertyName == "formalGreeter")
        #expect(InjectionSite.declaredName(in: #"  @Injected(tag: "let x") private var  mailer: Mailer"#) == "mailer")
        #expect(InjectionSite.declaredName(in: "    @Injected") == nil)
        #expect(LazyHolder().$formal.box.site.propertyName == "formal")
    }

    @Test func aWrapperMadeByAnInitializerCallIsNotNamed() {
        let site = LazyInjected<Greeter>(from: Container(name: "c")).box.site
        #expect(site.propertyName == nil)
        #expect(site.described == "@LazyInjected property")
    }

    #if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)  // where exit tests run
    @Test func theFatalErrorOfAStoredPropertyNamesTheProperty() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = MissingMailer()
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(output.contains("@Injected property 'mailer' declared at ScopeGraphTests/PropertyWrapperTests.swift:"))
        #expect(output.contains("(in MissingMailer) could not resolve Greeter from container 'mail'."))
    }
    #endif
}

// MARK: Contract probes: defaults, `Container.current` at the time of resolving, tags, failures

/// Holders of the three wrappers with the defaults (no tag, no container) and with a tag.
private final class DefaultsHolder: ProbeFixtures {
    @LazyInjected var lazyDep: Dep
    @WeakInjected var weakDep: Dep?
    @LazyInjected(tag: "alias") var lazyService: any Service
    @WeakInjected(tag: "alias") var weakService: (any Service)?
}

private struct EagerTagged: ProbeFixtures {
    @Injected(tag: "alias") var service: any Service
}

/// A stored `@WeakInjected` with a tag and nothing registered for it, for the exit test.
private final class MissingWeakPlugin: ProbeFixtures {
    @WeakInjected(tag: "audit") var plugin: (any Plugin)?
}

/// A stored `@Injected` whose factory throws, for the exit test.
private struct FailingFactoryHolder: ProbeFixtures {
    @Injected var dep: Dep
}

extension PropertyWrapperTests {
    @Suite struct ContractProbes: ProbeFixtures {
        /// A container with a `Dep` singleton and an `Impl` answering for `Service` under "alias".
        static func bound(_ name: String) -> Container {
            let c = Container(name: name)
            c.register(Dep.self, lifetime: .singleton) { _ in Dep() }
            c.register(Impl.self, lifetime: .singleton) { _ in Impl() }.implements((any Service).self, tag: "alias")
            return c
        }

        /// `init(tag:from:)` defaults to no tag and no container (`Container.current`), for all
        /// three wrappers; a declared tag is the binding's tag.
        @Test func theInitializersDefaultToNoTagAndNoContainer() {
            let holder = DefaultsHolder()
            #expect(holder.$lazyDep.container == nil)
            #expect(holder.$lazyDep.tag == nil)
            #expect(holder.$weakDep.container == nil)
            #expect(holder.$weakDep.tag == nil)
            #expect(holder.$lazyService.tag == "alias")
            #expect(holder.$weakService.tag == "alias")
            let eager = Container.$current.withValue(Self.bound("bound")) { EagerTagged() }
            #expect(eager.$service.container == nil)
            #expect(eager.$service.tag == "alias")
            #expect(!holder.$lazyDep.isResolved && !holder.$weakDep.isResolved)
        }

        /// Lazy and weak wrappers made outside any binding, first read inside one, resolve
        /// (with their tags) from the container bound at that read; a later read under another
        /// binding keeps the instance.
        @Test func lazyAndWeakWrappersResolveFromTheBindingInForceAtTheirFirstRead() throws {
            let holder = DefaultsHolder()
            let first = Self.bound("first")
            let second = Self.bound("second")
            let (dep, service, weakDep, weakService) = Container.$current.withValue(first) {
                (holder.lazyDep, holder.lazyService, holder.weakDep, holder.weakService)
            }
            #expect(dep === (try first.resolve(Dep.self)))
            #expect(service === (try first.resolve((any Service).self, tag: "alias")))
            #expect(weakDep === dep)
            #expect(weakService === service)
            Container.$current.withValue(second) {
                #expect(holder.lazyDep === dep)
                #expect(holder.weakService === service)
            }
        }

        /// A child task started inside the binding sees it at its first read; so does a task
        /// group's child.
        @Test func aFirstReadInAChildTaskUsesTheBindingOfItsParent() async throws {
            let bound = Self.bound("bound")
            let lazyDep = LazyInjected<Dep>()
            let lazyService = LazyInjected<any Service>(tag: "alias")
            let (dep, service) = await Container.$current.withValue(bound) {
                async let dep = lazyDep.wrappedValue
                let service = await withTaskGroup(of: (any Service).self) { group in
                    group.addTask { lazyService.wrappedValue }
                    return await group.next()!
                }
                return await (dep, service)
            }
            #expect(dep === (try bound.resolve(Dep.self)))
            #expect(service === (try bound.resolve((any Service).self, tag: "alias")))
        }

        /// `nil` container means `Container.current` at the time of resolving, also for
        /// `@Injected` after a rebinding: setting the container back to `nil` makes the next read
        /// resolve from the container bound then, and rebinding only the tag keeps `nil`.
        @Test func anInjectedReboundToNilResolvesFromTheBindingAtItsNextRead() throws {
            let explicit = Self.bound("explicit")
            let later = Self.bound("later")
            let wrapper = Injected<any Service>(tag: "alias", from: explicit)
            #expect(wrapper.wrappedValue === (try explicit.resolve((any Service).self, tag: "alias")))
            wrapper.projectedValue.container = nil
            let reread = Container.$current.withValue(later) { wrapper.wrappedValue }
            #expect(reread === (try later.resolve((any Service).self, tag: "alias")))

            let tagOnly = Container.$current.withValue(explicit) { EagerTagged() }
            tagOnly.$service.tag = "alias"
            #expect(tagOnly.$service.container == nil)
            let afterTagRebind = Container.$current.withValue(later) { tagOnly.service }
            #expect(afterTagRebind === (try later.resolve((any Service).self, tag: "alias")))
        }

        /// A tag is never a fallback: the untagged registration does not answer a tagged
        /// property, and the tagged one does not answer an untagged property.
        @Test func aTaggedPropertyGetsTheTaggedRegistrationOnly() throws {
            let c = Container(name: "c")
            c.register(Impl.self, lifetime: .singleton) { _ in Impl() }.implements((any Service).self)
            c.register(Impl.self, tag: "alias", lifetime: .singleton) { _ in Impl() }
                .implements((any Service).self, tag: "alias")
            let tagged = LazyInjected<any Service>(tag: "alias", from: c)
            let untagged = LazyInjected<any Service>(from: c)
            #expect(tagged.wrappedValue === (try c.resolve(Impl.self, tag: "alias")))
            #expect(untagged.wrappedValue === (try c.resolve(Impl.self)))
            #expect(tagged.wrappedValue !== untagged.wrappedValue)
        }

        #if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)  // where exit tests run
        /// A `@WeakInjected` stored property that cannot resolve stops the program, naming the
        /// property, its enclosing type, the tagged key it wanted and the bound container.
        @Test func aFailingWeakPropertyStopsWithItsNameAndWhatItWanted() async throws {
            let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let bound = Container(name: "bound")
                let holder = MissingWeakPlugin()
                _ = Container.$current.withValue(bound) { holder.plugin }
            }
            let output = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(
                output.contains(
                    "@WeakInjected property 'plugin' declared at ScopeGraphTests/PropertyWrapperTests.swift:"))
            #expect(output.contains("(in MissingWeakPlugin) could not resolve"))
            #expect(output.contains(#"[tag: "audit"] from container 'bound'."#))
            #expect(output.contains("searched: bound"))
        }

        /// An `@Injected` whose factory throws stops the program with the full error: the
        /// property, the key, the container, and the factory's error.
        @Test func anInjectedWhoseFactoryThrowsStopsWithTheFactorysError() async throws {
            let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let bound = Container(name: "factories")
                bound.register(ProbeTypes.Dep.self) { _ in throw Boom("the disk is full") }
                _ = Container.$current.withValue(bound) { FailingFactoryHolder() }
            }
            let output = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(output.contains("@Injected property 'dep' declared at ScopeGraphTests/PropertyWrapperTests.swift:"))
            #expect(output.contains("(in FailingFactoryHolder) could not resolve Dep from container 'factories'."))
            #expect(output.contains("the disk is full"))
        }

        /// A factory that reads the lazy property it is building for, on the same thread, stops
        /// the program with a message naming the property and the type, instead of deadlocking.
        @Test func aFactoryReadingItsOwnLazyPropertyStopsInsteadOfDeadlocking() async throws {
            let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let wrapper = LazyInjected<ProbeTypes.Dep>()
                let container = Container(name: "reentrant")
                container.register(ProbeTypes.Dep.self) { _ in wrapper.wrappedValue }
                wrapper.projectedValue.container = container
                _ = wrapper.wrappedValue
            }
            let output = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(output.contains("@LazyInjected property declared at ScopeGraphTests/PropertyWrapperTests.swift:"))
            #expect(output.contains("was read while its own resolve of Dep was still running on this thread"))
        }

        /// A detached task does not see the binding: a lazy property first read there resolves
        /// from `Container.shared`, and its failure message says so.
        @Test func aFirstReadInADetachedTaskResolvesFromShared() async throws {
            let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let bound = Container(name: "bound")
                bound.register(ProbeTypes.Mid.self) { _ in ProbeTypes.Mid() }
                let wrapper = LazyInjected<ProbeTypes.Mid>()
                await Container.$current.withValue(bound) {
                    _ = await Task.detached { wrapper.wrappedValue }.value
                }
            }
            let output = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(output.contains("could not resolve Mid from container 'shared'."))
        }
        #endif
    }
}
