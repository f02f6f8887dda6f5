import CCRC32C

/// CRC-32C (Castagnoli), the checksum of every journal entry, export line and checked
/// projection value.
///
/// Castagnoli's polynomial detects more error patterns than the classic CRC-32 for the sizes
/// we store, and processors compute it in hardware: SSE 4.2's `crc32` on x86_64 and the ARMv8
/// CRC extension on arm64 (CCRC32C). Which path runs is decided once, on first use; a
/// processor without either uses slicing-by-8, eight bytes per step from tables. Both give
/// the same checksum for the same bytes (`CRC32CTests`). Package-visible so recorded sessions
/// (SyncTesting) checksum their exchange lines the way the journal export does.
package enum CRC32C {
    /// Whether this processor computes CRC-32C in hardware; asked once, since the answer
    /// cannot change while the process runs.
    package static let isHardwareAvailable: Bool = ccrc32c_hardware_available() != 0

    private static let polynomial: UInt32 = 0x82F6_3B78  // reflected 0x1EDC6F41

    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
            tables[0][byte] = crc
        }
        for byte in 0..<256 {
            var crc = tables[0][byte]
            for table in 1..<8 {
                crc = tables[0][Int(crc & 0xFF)] ^ (crc >> 8)
                tables[table][byte] = crc
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    /// - Complexity: O(n).
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        checksum(bytes, continuing: 0)
    }

    /// The checksum of the bytes checksummed as `previous` followed by `bytes`; start with 0.
    /// Checksums a file read in chunks.
    /// - Complexity: O(n).
    @inline(__always)
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32) -> UInt32 {
        guard isHardwareAvailable else { return softwareChecksum(bytes, continuing: previous) }
        return hardwareChecksum(bytes, continuing: previous)
    }

    /// ``checksum(_:continuing:)`` by the processor's CRC instructions; only when
    /// ``isHardwareAvailable`` (elsewhere it is an illegal instruction). Package-visible for
    /// the tests and the benchmark that compare the two paths.
    package static func hardwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32) -> UInt32 {
        precondition(isHardwareAvailable, "hardware CRC-32C on a processor without it")
        guard let base = bytes.baseAddress else { return previous }
        return ccrc32c_hardware_extend(previous, base, bytes.count)
    }

    /// ``checksum(_:continuing:)`` by slicing-by-8 tables, on any processor. Package-visible
    /// for the tests and the benchmark that compare the two paths.
    package static func softwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32) -> UInt32 {
        var crc: UInt32 = previous ^ 0xFFFF_FFFF
        var index = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { tables in
            let t0 = tables[0]
            let t1 = tables[1]
            let t2 = tables[2]
            let t3 = tables[3]
            let t4 = tables[4]
            let t5 = tables[5]
            let t6 = tables[6]
            let t7 = tables[7]
            while index + 8 <= count {
                let low =
                    UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
                    | UInt32(bytes[index + 3]) << 24
                let high =
                    UInt32(bytes[index + 4]) | UInt32(bytes[index + 5]) << 8
                    | UInt32(bytes[index + 6]) << 16 | UInt32(bytes[index + 7]) << 24
                let mixed = crc ^ low
                crc =
                    t7[Int(mixed & 0xFF)] ^ t6[Int((mixed >> 8) & 0xFF)] ^ t5[Int((mixed >> 16) & 0xFF)]
                    ^ t4[Int(mixed >> 24)] ^ t3[Int(high & 0xFF)] ^ t2[Int((high >> 8) & 0xFF)]
                    ^ t1[Int((high >> 16) & 0xFF)] ^ t0[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = t0[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum of `bytes`.
    /// - Complexity: O(n).
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
