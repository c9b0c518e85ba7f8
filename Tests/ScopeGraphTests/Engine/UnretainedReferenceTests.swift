import ScopeGraphTestSupport
import Testing

@testable import ScopeGraph

/// The debug checks of the engine's unretained references (`DebugLiveness`): a reference
/// that outlives its object stops the process in a debug build instead of reading freed
/// memory unnoticed.
@Suite struct UnretainedReferenceTests {
    @Test func everyObjectHasAnIdentityOfItsOwnUntilItsDeinitClearsIt() {
        let first = DebugLiveness()
        let second = DebugLiveness()
        #expect(first.current != 0)
        #expect(second.current != 0)
        #expect(first.current != second.current)
        first.end()
        #expect(first.current == 0)
    }

    #if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)  // where exit tests run
    /// Expects the stopped process's standard error to say `message`, or (under
    /// AddressSanitizer, which reports the read of the freed object first) a use after free.
    private static func expectStopped(
        _ result: ExitTest.Result?, saying message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            output.contains(message) || output.contains("AddressSanitizer: heap-use-after-free"), "\(output)",
            sourceLocation: sourceLocation)
    }

    @Test func aRequestThatOutlivesItsStartingContainerStopsADebugBuild() async {
        #if DEBUG
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var container: Container? = Container(name: "freed")
            let request = Request(key: Key(Int.self, tag: nil), start: container!, arguments: nil)
            container = nil
            _ = request.start
        }
        Self.expectStopped(result, saying: "a request outlived the container it started from")
        #endif
    }

    @Test func aContextFreedWhileBoundToItsThreadStopsADebugBuild() async {
        #if DEBUG
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let thread = ThreadState.current
            do {
                let context = ResolutionContext()
                thread.context = context
            }
            _ = thread.context
        }
        Self.expectStopped(result, saying: "a context was freed while bound to its thread")
        #endif
    }
    #endif
}
