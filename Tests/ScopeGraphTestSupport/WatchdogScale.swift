#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many times longer than usual a watchdog waits: 3 when this test process runs under
/// ThreadSanitizer or AddressSanitizer (found by their runtimes' entry points), 1 otherwise.
/// Under ThreadSanitizer on 2 cores, synchronous stress tests of other suites can hold every
/// thread of the cooperative pool for many seconds, during which a suspended async test cannot
/// resume: no hang of its own. A real hang never finishes, so it is still caught.
package let watchdogScale: Double = {
    let program = dlopen(nil, RTLD_NOW)
    defer { if let program { dlclose(program) } }
    let sanitized = dlsym(program, "__tsan_init") != nil || dlsym(program, "__asan_init") != nil
    return sanitized ? 3 : 1
}()
