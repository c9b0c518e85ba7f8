import ScopeGraph
import ScopeGraphTestSupport
import Testing

/// Main-actor state, like a screen's view model.
@MainActor private final class ScreenState {
    var title = ""
    var handlers: [ShutdownProbe] = []
}

/// `withScope(name:_:)`: a child that lives as long as the body, shut down when the body
/// returns or throws; which error it throws when the body, the shutdown, or both fail.
@Suite struct WithScopeTests {
    /// A root whose `perContainer` handler (built from the root's singleton pool) records its
    /// hook and throws from it when `failingHandler` is set.
    private static func app(recorder: ShutdownRecorder, failingHandler: Bool = false) -> Container {
        let root = Container(name: "app")
        root.registerShutdownProbe("pool", recorder: recorder)
        root.register(ShutdownProbe.self, tag: "handler", lifetime: .perContainer) { r in
            ShutdownProbe("handler", [try r.resolve(tag: "pool")])
        }
        .onShutdown { handler in
            recorder.record(handler)
            if failingHandler { throw Boom("handler hook") }
        }
        return root
    }

    /// A `request` scope of `app` whose handler's hook throws, and whose body resolves the
    /// handler and then throws too when `bodyThrows`: the error `withScope` threw (an `E`), and
    /// what the hooks recorded.
    private static func failingRequest<E: Error>(_ type: E.Type, bodyThrows: Bool) async throws -> (
        error: E, recorder: ShutdownRecorder
    ) {
        let recorder = ShutdownRecorder()
        let root = app(recorder: recorder, failingHandler: true)
        let error = try #require(
            await #expect(throws: E.self) {
                try await root.withScope(name: "request") { scope in
                    _ = try scope.resolveProbe("handler")
                    if bodyThrows { throw Boom("body failed") }
                }
            })
        return (error, recorder)
    }

    @Test func theChildIsShutDownWhenTheBodyReturns() async throws {
        try await withAsyncWatchdog {
            let recorder = ShutdownRecorder()
            let root = Self.app(recorder: recorder)

            let (scope, handler, label) = try await root.withScope(name: "request") { scope in
                #expect(scope.parent === root && scope.name == "request")
                #expect(!scope.isShutDown)
                let handler = try scope.resolveProbe("handler")
                #expect(recorder.count == 0)
                return (scope, handler, handler.label)
            }

            #expect(label == "handler", "the body's result is returned")
            #expect(scope.isShutDown)
            #expect(recorder.instances.count == 1 && recorder.count(of: handler) == 1)
            #expect(!root.isShutDown, "only the scope is shut down")
            #expect(try root.resolveProbe("pool") === handler.dependencies.first)
        }
    }

    @Test func theChildIsShutDownWhenTheBodyThrowsAndTheBodysErrorIsThrownAsIs() async throws {
        try await withAsyncWatchdog {
            let recorder = ShutdownRecorder()
            let root = Self.app(recorder: recorder)
            let seen = Guarded<(Container, ShutdownProbe)?>(nil)

            await #expect(throws: Boom("body failed")) {
                try await root.withScope(name: "request") { scope in
                    let handler = try scope.resolveProbe("handler")
                    seen.withLock { $0 = (scope, handler) }
                    throw Boom("body failed")
                }
            }

            let (scope, handler) = try #require(seen.current)
            #expect(scope.isShutDown)
            #expect(recorder.count == 1 && recorder.count(of: handler) == 1)
        }
    }

    @Test func aShutdownFailureAloneThrowsTheShutdownError() async throws {
        try await withAsyncWatchdog {
            let (error, _) = try await Self.failingRequest(ShutdownError.self, bodyThrows: false)

            #expect(error.failures.map(\.container) == ["request"])
            #expect(error.failures.map(\.key) == [ServiceKey(typeName: "ShutdownProbe", tag: "handler")])
            #expect(error.failures.compactMap { $0.error as? Boom } == [Boom("handler hook")])
        }
    }

    @Test func aBodyFailureAndAShutdownFailureThrowAScopeErrorCarryingBoth() async throws {
        try await withAsyncWatchdog {
            let (error, recorder) = try await Self.failingRequest(ScopeError.self, bodyThrows: true)

            #expect((error.bodyError as? Boom) == Boom("body failed"))
            #expect(error.shutdownError.failures.map(\.container) == ["request"])
            #expect(error.shutdownError.failures.compactMap { $0.error as? Boom } == [Boom("handler hook")])
            #expect(error.description.contains("body failed") && error.description.contains("handler hook"))
            #expect(recorder.count == 1)
        }
    }

    @MainActor
    @Test func itCanBeCalledFromTheMainActorWithABodyThatTouchesMainActorState() async throws {
        try await withAsyncWatchdog { @MainActor in
            let recorder = ShutdownRecorder()
            let root = Self.app(recorder: recorder)
            let screen = ScreenState()

            let scope = try await root.withScope(name: "screen") { scope in
                let handler = try scope.resolveProbe("handler")
                screen.title = handler.label  // synchronous: the body runs on the main actor
                screen.handlers.append(handler)
                await Task.yield()
                screen.title += " shown"
                return scope
            }

            #expect(screen.title == "handler shown")
            #expect(scope.isShutDown)
            #expect(screen.handlers.count == 1 && recorder.count(of: screen.handlers[0]) == 1)
        }
    }

    @Test func descendantsMadeInTheBodyAreShutDownWithTheScope() async throws {
        try await withAsyncWatchdog {
            let recorder = ShutdownRecorder()
            let root = Self.app(recorder: recorder)

            let (inner, innerHandler, outerHandler) = try await root.withScope(name: "outer") { outer in
                let outerHandler = try outer.resolveProbe("handler")
                let inner = outer.makeChild(name: "inner")
                return (inner, try inner.resolveProbe("handler"), outerHandler)
            }

            #expect(inner.isShutDown)
            try #require(recorder.instances.count == 2)
            #expect(recorder.instances[0] === innerHandler && recorder.instances[1] === outerHandler)
        }
    }

    @Test func nestedScopesAreShutDownInnermostFirstEachWhenItsBodyEnds() async throws {
        try await withAsyncWatchdog {
            let recorder = ShutdownRecorder()
            let root = Self.app(recorder: recorder)

            let outerHandler = try await root.withScope(name: "outer") { outer in
                let outerHandler = try outer.resolveProbe("handler")
                let innerHandler = try await outer.withScope(name: "inner") { inner in
                    try inner.resolveProbe("handler")
                }
                #expect(recorder.instances.count == 1 && recorder.count(of: innerHandler) == 1)
                #expect(!outer.isShutDown)
                #expect(try outer.resolveProbe("handler") === outerHandler)
                return outerHandler
            }

            #expect(recorder.instances.count == 2 && recorder.count(of: outerHandler) == 1)
        }
    }

    @Test func manyConcurrentScopesEachShutDownTheirOwnHandlerOnly() async throws {
        try await withAsyncWatchdog {
            let recorder = ShutdownRecorder()
            let root = Self.app(recorder: recorder)

            let handlers = try await withThrowingTaskGroup(of: ShutdownProbe.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await root.withScope(name: "request-\(index)") { scope in
                            let handler = try scope.resolveProbe("handler")
                            await Task.yield()
                            #expect(try scope.resolveProbe("handler") === handler)
                            return handler
                        }
                    }
                }
                return try await group.reduce(into: [ShutdownProbe]()) { $0.append($1) }
            }

            #expect(handlers.count == 40)
            #expect(Set(handlers.map(ObjectIdentifier.init)).count == 40)
            #expect(recorder.count == 40)
            #expect(handlers.allSatisfy { recorder.count(of: $0) == 1 })
            let pool = try root.resolveProbe("pool")
            #expect(handlers.allSatisfy { $0.dependencies.first === pool })
            #expect(recorder.count(of: pool) == 0, "the root's pool outlives the scopes")
        }
    }
}
