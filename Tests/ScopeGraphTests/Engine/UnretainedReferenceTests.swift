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
    @Test func aRequestThatOutlivesItsStartingContainerStopsADebugBuild() async {
        #if DEBUG
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var container: Container? = Container(name: "freed")
            let request = Request(key: Key(Int.self, tag: nil), start: container!, arguments: nil)
            container = nil
            _ = request.start
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        // Under AddressSanitizer the read of the freed container is reported first.
        #expect(
            output.contains("a request outlived the container it started from")
                || output.contains("AddressSanitizer: heap-use-after-free"), "\(output)")
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
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        // Under AddressSanitizer the read of the freed context is reported first.
        #expect(
            output.contains("a context was freed while bound to its thread")
                || output.contains("AddressSanitizer: heap-use-after-free"), "\(output)")
        #endif
    }
    #endif
}
