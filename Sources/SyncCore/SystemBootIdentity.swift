import Foundation

/// The live boot identity: the kernel's own name for the current boot.
///
/// On Linux this is `/proc/sys/kernel/random/boot_id`, a random UUID the kernel draws at each
/// boot. Elsewhere (Apple platforms) it is the `kern.boottime` the kernel reports, which also
/// changes only across restarts. This file is the only place in `Sources/` that reads it.
public struct SystemBootIdentity: BootIdentity {
    /// Where Linux publishes the boot's identifier.
    static let linuxBootIdentifierPath = "/proc/sys/kernel/random/boot_id"

    /// Creates the live boot identity.
    public init() {}

    public func current() throws -> String {
        #if os(Linux)
            let text = try String(contentsOfFile: Self.linuxBootIdentifierPath, encoding: .utf8)
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        #else
            var bootTime = timeval()
            var size = MemoryLayout<timeval>.size
            guard sysctlbyname("kern.boottime", &bootTime, &size, nil, 0) == 0 else {
                throw CocoaError(.fileReadUnknown)
            }
            return "boottime-\(bootTime.tv_sec)-\(bootTime.tv_usec)"
        #endif
    }
}
