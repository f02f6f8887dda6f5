import Foundation

#if canImport(Darwin)
    import Darwin
#endif

/// The live boot identity: the kernel's own name for the current boot.
///
/// On Linux this is `/proc/sys/kernel/random/boot_id`; on Apple platforms (macOS and iOS) it is
/// the `kern.bootsessionuuid` sysctl. Each is a random UUID the kernel draws once per boot, so it
/// changes across restarts and nothing else. `kern.boottime` moves whenever the wall clock is
/// set, so it is read only where a sandbox refuses the identifier; a clock change then costs
/// one needless recovery at open, never trust in unsynced files. This file is the only place in
/// `Sources/` that reads them.
public struct SystemBootIdentity: BootIdentity {
    /// Where Linux publishes the boot's identifier.
    static let linuxBootIdentifierPath = "/proc/sys/kernel/random/boot_id"
    /// The sysctl that holds the boot's identifier on Apple platforms.
    static let darwinBootSessionName = "kern.bootsessionuuid"
    /// The sysctl read instead where the boot's identifier is refused.
    static let darwinBootTimeName = "kern.boottime"

    /// Creates the live boot identity.
    public init() {}

    /// The current boot's identifier.
    ///
    /// - Throws: the file or system error when the kernel's identifier cannot be read.
    public func current() throws -> String {
        #if os(Linux)
            let text = try String(contentsOfFile: Self.linuxBootIdentifierPath, encoding: .utf8)
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        #elseif canImport(Darwin)
            if let session = Self.darwinBootSession() { return session }
            // A sandbox that refuses the session sysctl: the boot time, which also changes at
            // every restart; a wall-clock change then only costs a needless recovery at open.
            var bootTime = timeval()
            var size = MemoryLayout<timeval>.size
            guard sysctlbyname(Self.darwinBootTimeName, &bootTime, &size, nil, 0) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            return "boottime-\(bootTime.tv_sec)-\(bootTime.tv_usec)"
        #else
            throw POSIXError(.ENOTSUP)
        #endif
    }

    #if canImport(Darwin)
        /// The `kern.bootsessionuuid` text, or `nil` when the system does not give it.
        private static func darwinBootSession() -> String? {
            // First the size (a UUID's 36 characters and the terminating NUL), then the text.
            var size = 0
            guard sysctlbyname(darwinBootSessionName, nil, &size, nil, 0) == 0, size > 1 else { return nil }
            var buffer = [CChar](repeating: 0, count: size)
            guard sysctlbyname(darwinBootSessionName, &buffer, &size, nil, 0) == 0 else { return nil }
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    #endif
}
