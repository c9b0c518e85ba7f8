import Foundation
import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// An optional service: some apps register it, some do not.
private protocol Analytics: AnyObject, Sendable {}

private final class ConsoleAnalytics: Analytics {}

/// A dependency that is never registered.
private final class Transport: Sendable {}

/// A service whose factory needs the unregistered `Transport`.
private final class RemoteAnalytics: Analytics {
    let transport: Transport
    init(transport: Transport) { self.transport = transport }
}

/// A model with an optional `@Injected` property, resolved at creation from `Container.current`.
private final class ScreenModel {
    @Injected var analytics: (any Analytics)?
}

/// A model with optional lazy properties, untagged and tagged.
private final class LazyScreenModel {
    @LazyInjected var analytics: (any Analytics)?
    @LazyInjected(tag: "audit") var audit: (any Analytics)?
}

/// A model whose optional property's registration is found but fails.
private final class FailingScreenModel {
    @Injected var analytics: (any Analytics)?
}

/// A model with a weak property and nothing registered for it.
private final class WeakScreenModel {
    @WeakInjected var analytics: (any Analytics)?
}

/// `@Injected var x: T?` and `@LazyInjected var x: T?`: `nil` when nothing is registered,
/// the instance when something is, and a stop when a registration is found but fails.
@Suite struct OptionalInjectionTests {
    @Test func anOptionalInjectedPropertyIsNilWhenNothingIsRegistered() {
        let empty = Container(name: "empty")

        let model = Container.$current.withValue(empty) { ScreenModel() }

        #expect(model.analytics == nil)
        #expect(model.$analytics.isResolved)
    }

    @Test func anOptionalInjectedPropertyGetsTheInstanceRegisteredForTheWrappedType() {
        let app = Container(name: "app")
        app.register((any Analytics).self, lifetime: .singleton) { _ in ConsoleAnalytics() }

        let model = Container.$current.withValue(app) { ScreenModel() }

        #expect(model.analytics is ConsoleAnalytics)
        #expect(model.analytics === (try? app.resolve((any Analytics).self)))
    }

    @Test func aRegistrationOfTheOptionalTypeItselfAnswersFirst() {
        let app = Container(name: "app")
        app.register((any Analytics).self) { _ in ConsoleAnalytics() }
        app.register((any Analytics)?.self) { _ in nil }

        let model = Container.$current.withValue(app) { ScreenModel() }

        #expect(model.analytics == nil)
    }

    @Test func anOptionalPropertyWithAnExplicitContainerResolvesFromIt() {
        let app = Container(name: "app")
        app.register((any Analytics).self) { _ in ConsoleAnalytics() }

        let present = Injected<(any Analytics)?>(from: app)
        let absent = Injected<(any Analytics)?>(from: Container(name: "empty"))

        #expect(present.wrappedValue is ConsoleAnalytics)
        #expect(absent.wrappedValue == nil)
    }

    @Test func anOptionalTaggedPropertyDoesNotFallBackToTheUntaggedRegistration() {
        let app = Container(name: "app")
        app.register((any Analytics).self) { _ in ConsoleAnalytics() }

        let model = LazyScreenModel()
        model.$audit.container = app
        model.$analytics.container = app

        #expect(model.audit == nil)
        #expect(model.analytics is ConsoleAnalytics)
    }

    @Test func anOptionalLazyPropertyIsNilWhenNothingIsRegisteredAndKeepsThatUntilRebound() {
        let app = Container(name: "app")
        let model = LazyScreenModel()
        model.$analytics.container = app
        #expect(!model.$analytics.isResolved, "nothing is resolved before the first read")

        #expect(model.analytics == nil)
        app.register((any Analytics).self) { _ in ConsoleAnalytics() }
        #expect(model.analytics == nil, "the first read's answer is kept, as any resolved value is")

        model.$analytics.container = app
        #expect(model.analytics is ConsoleAnalytics)
    }

    @Test func anOptionalLazyPropertyResolvesFromTheContainerBoundAtItsFirstRead() {
        let app = Container(name: "app")
        app.register((any Analytics).self) { _ in ConsoleAnalytics() }
        let model = LazyScreenModel()

        let analytics = Container.$current.withValue(app) { model.analytics }

        #expect(analytics is ConsoleAnalytics)
    }

    @Test func assigningNilToAnOptionalPropertyStoresNil() {
        let app = Container(name: "app")
        app.register((any Analytics).self) { _ in ConsoleAnalytics() }
        let model = Container.$current.withValue(app) { ScreenModel() }

        model.analytics = nil

        #expect(model.analytics == nil)
        #expect(model.$analytics.isResolved)
    }

    #if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)  // where exit tests run
    @Test func anOptionalPropertyWhoseRegistrationFailsStillStopsWithTheError() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Container(name: "remote")
            app.register((any Analytics).self) { r in RemoteAnalytics(transport: try r.resolve()) }
            _ = Container.$current.withValue(app) { FailingScreenModel() }
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            output.contains("@Injected property 'analytics' declared at ScopeGraphTests/OptionalInjectionTests.swift:"))
        #expect(output.contains("from container 'remote'."))
        #expect(output.contains("ResolutionError: nothing is registered for Transport."))
    }

    @Test func anOptionalLazyPropertyWhoseFactoryThrowsStillStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Container(name: "throwing")
            app.register((any Analytics).self) { _ in throw Boom("no network") }
            let model = LazyScreenModel()
            model.$analytics.container = app
            _ = model.analytics
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(output.contains("@LazyInjected property 'analytics' declared at"))
        #expect(output.contains("the factory of"))
        #expect(output.contains("no network"))
    }

    @Test func anOptionalPropertyRegisteredOnlyWithRuntimeArgumentsStillStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Container(name: "arguments")
            app.register((any Analytics).self) { (_, _: Int) in ConsoleAnalytics() }
            _ = Container.$current.withValue(app) { ScreenModel() }
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(output.contains("@Injected property 'analytics' declared at"))
        #expect(output.contains("is registered only with other runtime argument types"))
    }

    @Test func aWeakPropertyStillStopsWhenNothingIsRegistered() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let model = WeakScreenModel()
            model.$analytics.container = Container(name: "empty")
            _ = model.analytics
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(output.contains("@WeakInjected property 'analytics' declared at"))
        #expect(output.contains("ResolutionError: nothing is registered for"))
    }
    #endif
}
