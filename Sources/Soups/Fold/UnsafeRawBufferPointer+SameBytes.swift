#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly `bytes`.
    ///
    /// `memcmp` rather than `elementsEqual`: the generic comparison goes byte by byte through
    /// iterators, and the fold and every query compare stored values this way.
    func hasSameBytes(as bytes: [UInt8]) -> Bool {
        guard count == bytes.count else { return false }
        guard let base = baseAddress, count > 0 else { return true }
        return bytes.withUnsafeBytes { memcmp(base, $0.baseAddress!, count) == 0 }
    }
}
