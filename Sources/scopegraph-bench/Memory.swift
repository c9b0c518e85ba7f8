import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Readings of the process's memory.
enum Memory {
    /// Resident set size in kilobytes, from `/proc/self/status` (`VmRSS`); `nil` where there
    /// is no procfs.
    static func residentKilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }

    /// Bytes currently allocated with malloc (glibc's `mallinfo2`: `uordblks`, bytes in use in
    /// the arenas, plus `hblkhd`, bytes in mmapped blocks); `nil` where it is not available.
    static func heapBytesInUse() -> Int? {
        guard let info = MallocStatistics.read() else { return nil }
        return info.inUse + info.mapped
    }

    /// Heap bytes that the objects `make` returns keep allocated, per object: creates `count`
    /// of them, keeps them all, and divides the growth of the heap.
    static func bytesPerObject<T>(count: Int, _ make: (Int) -> T) -> Double? {
        var kept: [T] = []
        kept.reserveCapacity(count)
        guard let before = heapBytesInUse() else { return nil }
        for index in 0..<count { kept.append(make(index)) }
        guard let after = heapBytesInUse() else { return nil }
        withExtendedLifetime(kept) {}
        return Double(after - before) / Double(count)
    }

    /// Heap bytes per call of `body`, measured over `count` calls whose effects `state` keeps.
    static func bytesPerCall<S>(count: Int, state: S, _ body: (S, Int) -> Void) -> Double? {
        guard let before = heapBytesInUse() else { return nil }
        for index in 0..<count { body(state, index) }
        guard let after = heapBytesInUse() else { return nil }
        withExtendedLifetime(state) {}
        return Double(after - before) / Double(count)
    }
}

/// glibc's `mallinfo2()`, which the Swift `Glibc` module does not export (it does not include
/// `malloc.h`). Found with `dlsym` and called by the x86-64 System V convention for a struct
/// returned in memory: the caller passes the result's address as the first argument, so a C
/// function pointer taking that address is an exact match. Other architectures pass it
/// differently (arm64 uses x8), so there the statistics are unavailable.
private enum MallocStatistics {
    struct Info {
        let inUse: Int
        let mapped: Int
    }

    static func read() -> Info? {
        #if os(Linux) && arch(x86_64)
        typealias Mallinfo2 = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
        guard let symbol = dlsym(nil, "mallinfo2") else { return nil }
        let function = unsafeBitCast(symbol, to: Mallinfo2.self)
        // struct mallinfo2: arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks,
        // uordblks, fordblks, keepcost; ten size_t fields.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 10) { fields in
            fields.initialize(repeating: 0)
            _ = function(UnsafeMutableRawPointer(fields.baseAddress!))
            return Info(inUse: fields[7], mapped: fields[4])
        }
        #else
        return nil
        #endif
    }
}
