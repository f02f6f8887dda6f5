#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads byte ranges of a data file with `pread`, never past its end: what checking a file
/// before it is mapped needs, since a mapped read past the end raises `SIGBUS`.
struct PageReader {
    let descriptor: Int32
    let fileBytes: Int

    /// The `count` bytes at `offset`, or `nil` when the file does not hold all of them.
    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= fileBytes, count <= fileBytes - offset else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress.map { $0 + done }, count - done, off_t(offset + done))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { return nil }
            done += read
        }
        return buffer
    }

    /// The native-endian integer at `offset` of `bytes`, or zero when it does not fit (the
    /// callers check sizes first; zero then fails their checks).
    static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], _ offset: Int) -> T {
        guard offset >= 0, offset + MemoryLayout<T>.size <= bytes.count else { return 0 }
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }
}
