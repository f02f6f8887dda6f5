import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The CPU time every thread of this process spends while `body` runs, in seconds: unlike wall
/// time, it does not count time spent waiting for a core, so it stays comparable on a busy
/// machine. Every thread counts, since a fold reads and decodes ahead on a second one
/// (decision 0018); nothing else of the benchmark runs meanwhile.
func processCPUSeconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}
