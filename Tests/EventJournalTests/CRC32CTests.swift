import Determinism
import EventJournal
import Testing

/// CRC-32C's known vectors, and the hardware path against the software table.
@Suite struct CRC32CTests {
    /// The check value of the CRC catalogue ("123456789") and RFC 3720's 32 zero bytes and
    /// 32 bytes of 0xFF (iSCSI, appendix B.4).
    static let vectors: [(bytes: [UInt8], checksum: UInt32)] = [
        ([], 0),
        (Array("123456789".utf8), 0xE306_9283),
        ([UInt8](repeating: 0, count: 32), 0x8A91_36AA),
        ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
        (Array(UInt8(0)...UInt8(31)), 0x46DD_794E),
    ]

    @Test func theKnownVectorsMatchOnEveryPath() {
        for (bytes, expected) in Self.vectors {
            #expect(CRC32C.checksum(bytes) == expected, "\(bytes.count) bytes")
            let software = bytes.withUnsafeBytes { CRC32C.softwareChecksum($0, continuing: 0) }
            #expect(software == expected, "software, \(bytes.count) bytes")
            if CRC32C.isHardwareAvailable {
                let hardware = bytes.withUnsafeBytes { CRC32C.hardwareChecksum($0, continuing: 0) }
                #expect(hardware == expected, "hardware, \(bytes.count) bytes")
            }
        }
    }

    @Test(arguments: [UInt64(1), 29, 0xC0FFEE])
    func hardwareAndSoftwareAgreeOnEveryLengthAndMisalignedStart(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        // Room for every start within an 8-byte word and every length up to 1,300: the hardware
        // path checksums three interleaved streams of 128 bytes from 384 bytes on.
        let buffer = (0..<1_320).map { _ in UInt8.random(in: 0...255, using: &random) }
        buffer.withUnsafeBytes { whole in
            for start in 0..<8 {
                for length in 0...1_300 {
                    let slice = UnsafeRawBufferPointer(rebasing: whole[start..<(start + length)])
                    let software = CRC32C.softwareChecksum(slice, continuing: 0)
                    #expect(CRC32C.checksum(slice) == software, "start \(start), length \(length)")
                    if CRC32C.isHardwareAvailable {
                        #expect(
                            CRC32C.hardwareChecksum(slice, continuing: 0) == software,
                            "start \(start), length \(length)")
                    }
                }
            }
        }
    }

    @Test(arguments: [UInt64(2), 71])
    func checksumsContinuedAcrossChunksEqualTheWholeChecksum(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let buffer = (0..<2_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let whole = CRC32C.checksum(buffer)
        buffer.withUnsafeBytes { bytes in
            for _ in 0..<200 {
                // Up to four seeded cuts, so chunks of every size and alignment follow each other.
                let cuts =
                    ((0..<Int.random(in: 1...4, using: &random)).map { _ in
                        Int.random(in: 0...bytes.count, using: &random)
                    } + [0, bytes.count]).sorted()
                var software: UInt32 = 0
                var dispatched: UInt32 = 0
                var hardware: UInt32 = 0
                for (from, to) in zip(cuts, cuts.dropFirst()) {
                    let chunk = UnsafeRawBufferPointer(rebasing: bytes[from..<to])
                    software = CRC32C.softwareChecksum(chunk, continuing: software)
                    dispatched = CRC32C.checksum(chunk, continuing: dispatched)
                    if CRC32C.isHardwareAvailable { hardware = CRC32C.hardwareChecksum(chunk, continuing: hardware) }
                }
                #expect(software == whole, "cuts \(cuts)")
                #expect(dispatched == whole, "cuts \(cuts)")
                if CRC32C.isHardwareAvailable { #expect(hardware == whole, "cuts \(cuts)") }
            }
        }
    }
}
