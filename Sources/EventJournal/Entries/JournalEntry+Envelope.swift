import Determinism
import LosslessJSON

// The binary envelope of a stored entry. docs/journal-format.md describes it byte by byte;
// change both together and bump `envelopeVersion`.
extension JournalEntry {
    /// The layout of the canonical envelope: the payload as it is. Small entries are stored in
    /// it, and an entry's identity (its export line and that line's checksum) is always its
    /// canonical envelope, however the entry is stored.
    static let envelopeVersion: UInt8 = 1
    /// The layout of an envelope whose payload is one zstd frame (``PayloadCompression``): the
    /// canonical fields, then the frame's length and the frame instead of the payload.
    static let compressedEnvelopeVersion: UInt8 = 2

    private enum HeaderType: UInt8 {
        case string = 1
        case integer = 2
        case bool = 3
    }

    /// Checks the rules an entry must meet before it is written.
    static func validate(_ draft: Draft) throws(JournalError) {
        let kindLength = draft.kind.rawValue.utf8.count
        guard kindLength > 0, kindLength <= kindLengthMax else {
            throw JournalError(.invalidEntry, "an entry kind must be 1 to \(kindLengthMax) bytes, got \(kindLength)")
        }
        guard draft.header.count <= headerFieldCountMax else {
            throw JournalError(.invalidEntry, "an entry may carry at most \(headerFieldCountMax) header fields")
        }
        for name in draft.header.keys {
            let length = name.utf8.count
            guard length > 0, length <= headerNameLengthMax else {
                throw JournalError(
                    .invalidEntry, "header field name '\(name)' must be 1 to \(headerNameLengthMax) bytes")
            }
        }
        guard draft.payload.count <= payloadSizeMaxBytes else {
            throw JournalError(.invalidEntry, "payload of \(draft.payload.count) bytes exceeds \(payloadSizeMaxBytes)")
        }
        if draft.payloadFormat == .json, !draft.isSerializedJSON {
            do {
                _ = try JSONValue(parsing: draft.payload)
            } catch {
                throw JournalError(
                    .invalidEntry, "a JSON payload of kind \(draft.kind) is not JSON: \(error)", cause: error)
            }
        }
    }

    /// Encodes the entry as its stored envelope, checksum last.
    ///
    /// - Complexity: O(payload size).
    package func envelope() -> [UInt8] {
        let head = envelopeHead()
        let count = envelopeByteCount(head: head)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            _ = writeEnvelope(head: head, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// The size of the envelope whose fields before the payload are `head`.
    package func envelopeByteCount(head: [UInt8]) -> Int {
        head.count + payload.count + 4
    }

    /// Writes the envelope whose fields before the payload are `head` (``envelopeHead(compressedPayloadCount:)``)
    /// into `output`, which holds exactly its bytes (``envelopeByteCount(head:)``), and returns
    /// its checksum: ``envelope()``'s bytes, where the caller wants them (LMDB's page).
    package func writeEnvelope(head: [UInt8], into output: UnsafeMutableRawBufferPointer) -> UInt32 {
        precondition(output.count == envelopeByteCount(head: head), "the envelope's room must be its exact size")
        return payload.withUnsafeBytes { Self.writeEnvelope(head: head, body: $0, into: output) }
    }

    /// Writes `head`, `body` (the payload, or its frame) and the checksum of both into `output`,
    /// which holds exactly those bytes, and returns the checksum.
    static func writeEnvelope(
        head: [UInt8], body: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> UInt32 {
        let checksumStart = head.count + body.count
        precondition(output.count == checksumStart + 4, "the envelope's room must be its exact size")
        head.withUnsafeBytes { output.baseAddress?.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        if let base = body.baseAddress {
            (output.baseAddress! + head.count).copyMemory(from: base, byteCount: body.count)
        }
        let checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: output[..<checksumStart]))
        output.storeBytes(of: checksum.littleEndian, toByteOffset: checksumStart, as: UInt32.self)
        return checksum
    }

    /// The envelope's fields before the payload: the envelope is these, the payload, then the
    /// checksum of both. With `compressedPayloadCount`, the fields of a compressed envelope,
    /// which the frame of that many bytes follows instead of the payload.
    package func envelopeHead(compressedPayloadCount: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + kind.rawValue.utf8.count + header.count * 24)
        bytes.append(compressedPayloadCount == nil ? Self.envelopeVersion : Self.compressedEnvelopeVersion)
        bytes.append(payloadFormat.rawValue)
        bytes.appendLittleEndian(sequence)
        bytes.appendLittleEndian(UInt64(bitPattern: timestamp.millisecondsSinceEpoch))
        bytes.append(UInt8(kind.rawValue.utf8.count))
        bytes.append(contentsOf: kind.rawValue.utf8)
        bytes.appendLittleEndian(UInt16(header.count))
        // Fields in name order, so equal entries have equal bytes.
        for name in header.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            bytes.append(UInt8(name.utf8.count))
            bytes.append(contentsOf: name.utf8)
            switch header[name] {
            case .string(let value):
                bytes.append(HeaderType.string.rawValue)
                bytes.appendLittleEndian(UInt32(value.utf8.count))
                bytes.append(contentsOf: value.utf8)
            case .integer(let value):
                bytes.append(HeaderType.integer.rawValue)
                bytes.appendLittleEndian(UInt64(bitPattern: value))
            case .bool(let value):
                bytes.append(HeaderType.bool.rawValue)
                bytes.append(value ? 1 : 0)
            case nil:
                preconditionFailure("header key without value")
            }
        }
        bytes.appendLittleEndian(UInt32(payload.count))
        if let compressedPayloadCount { bytes.appendLittleEndian(UInt32(compressedPayloadCount)) }
        return bytes
    }

    /// Decodes and checks a stored envelope.
    ///
    /// - Parameter expectedSequence: the key it was stored under; the envelope must agree.
    /// - Throws: ``JournalError/Code/corruptEntry`` naming the sequence when the checksum, the
    ///   layout or the sequence is wrong.
    init(envelope bytes: UnsafeRawBufferPointer, expectedSequence: UInt64) throws(JournalError) {
        func corrupt(_ reason: String) -> JournalError {
            JournalError(
                .corruptEntry, "journal entry \(expectedSequence) is corrupt: \(reason)", sequence: expectedSequence)
        }
        guard bytes.count >= 4 + 23 else { throw corrupt("only \(bytes.count) bytes") }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
        let storedChecksum = bytes.loadLittleEndianUInt32(at: bytes.count - 4)
        guard CRC32C.checksum(body) == storedChecksum else { throw corrupt("checksum mismatch") }
        var reader = EnvelopeReader(bytes: body)
        guard let version = reader.byte(), version == Self.envelopeVersion || version == Self.compressedEnvelopeVersion
        else {
            throw corrupt(
                "envelope version \(body[0]) is neither \(Self.envelopeVersion) nor \(Self.compressedEnvelopeVersion)")
        }
        guard let formatByte = reader.byte(), let format = PayloadFormat(rawValue: formatByte),
            let sequence = reader.uint64(), let timestamp = reader.uint64(),
            let kindLength = reader.byte(), let kind = reader.string(count: Int(kindLength)),
            let fieldCount = reader.uint16()
        else { throw corrupt("truncated fixed fields") }
        guard sequence == expectedSequence else { throw corrupt("it says it is entry \(sequence)") }
        var header: [String: HeaderValue] = [:]
        for _ in 0..<fieldCount {
            guard let nameLength = reader.byte(), let name = reader.string(count: Int(nameLength)),
                let typeByte = reader.byte(), let type = HeaderType(rawValue: typeByte)
            else { throw corrupt("malformed header field") }
            switch type {
            case .string:
                guard let length = reader.uint32(), let value = reader.string(count: Int(length)) else {
                    throw corrupt("malformed header field \(name)")
                }
                header[name] = .string(value)
            case .integer:
                guard let value = reader.uint64() else { throw corrupt("malformed header field \(name)") }
                header[name] = .integer(Int64(bitPattern: value))
            case .bool:
                guard let value = reader.byte(), value <= 1 else { throw corrupt("malformed header field \(name)") }
                header[name] = .bool(value == 1)
            }
        }
        guard let payloadLength = reader.uint32() else { throw corrupt("payload length disagrees with the entry size") }
        let payload: [UInt8]
        if version == Self.compressedEnvelopeVersion {
            guard let frameLength = reader.uint32(), let frame = reader.slice(count: Int(frameLength)), reader.isAtEnd
            else { throw corrupt("compressed payload length disagrees with the entry size") }
            // The checksum held, so the frame is as written; this catches a writer's bug, or
            // damage that kept the checksum (1 in 2^32).
            guard payloadLength <= Self.payloadSizeMaxBytes,
                let decompressed = PayloadCompression.decompressed(frame, count: Int(payloadLength))
            else { throw corrupt("its compressed payload does not decompress to \(payloadLength) bytes") }
            payload = decompressed
        } else {
            guard let stored = reader.bytes(count: Int(payloadLength)), reader.isAtEnd else {
                throw corrupt("payload length disagrees with the entry size")
            }
            payload = stored
        }
        self.init(
            sequence: sequence, kind: Kind(rawValue: kind),
            timestamp: WallTime(millisecondsSinceEpoch: Int64(bitPattern: timestamp)), header: header,
            payload: payload, payloadFormat: format)
    }

    /// The timestamp of a stored envelope, read from its fixed fields without decoding or
    /// checksumming the rest.
    ///
    /// - Throws: ``JournalError/Code/corruptEntry`` when the envelope is too short, has another
    ///   version, or names another sequence.
    static func timestamp(ofEnvelope bytes: UnsafeRawBufferPointer, expectedSequence: UInt64) throws(JournalError)
        -> WallTime
    {
        var reader = EnvelopeReader(bytes: bytes)
        guard bytes.count >= 4 + 23, let version = reader.byte(),
            version == envelopeVersion || version == compressedEnvelopeVersion, reader.byte() != nil,
            let sequence = reader.uint64(), let timestamp = reader.uint64()
        else {
            throw JournalError(
                .corruptEntry, "journal entry \(expectedSequence) is corrupt: its fixed fields are unreadable",
                sequence: expectedSequence)
        }
        guard sequence == expectedSequence else {
            throw JournalError(
                .corruptEntry, "journal entry \(expectedSequence) is corrupt: it says it is entry \(sequence)",
                sequence: expectedSequence)
        }
        return WallTime(millisecondsSinceEpoch: Int64(bitPattern: timestamp))
    }

    /// The checksum stored at the end of an envelope.
    static func storedChecksum(ofEnvelope bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { $0.loadLittleEndianUInt32(at: $0.count - 4) }
    }
}

/// Reads fields off an envelope, returning `nil` instead of reading past its end.
private struct EnvelopeReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var isAtEnd: Bool {
        offset == bytes.count
    }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> UInt16? {
        guard offset + 2 <= bytes.count else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    mutating func uint32() -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        defer { offset += 4 }
        return bytes.loadLittleEndianUInt32(at: offset)
    }

    mutating func uint64() -> UInt64? {
        guard offset + 8 <= bytes.count else { return nil }
        defer { offset += 8 }
        return UInt64(bytes.loadLittleEndianUInt32(at: offset))
            | UInt64(bytes.loadLittleEndianUInt32(at: offset + 4)) << 32
    }

    mutating func bytes(count: Int) -> [UInt8]? {
        slice(count: count).map { Array($0) }
    }

    mutating func slice(count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, offset + count <= bytes.count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func string(count: Int) -> String? {
        guard let raw = bytes(count: count) else { return nil }
        return String(validating: raw, as: UTF8.self)
    }
}

extension UnsafeRawBufferPointer {
    func loadLittleEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
            | UInt32(self[offset + 3]) << 24
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var value = value.littleEndian
        Swift.withUnsafeBytes(of: &value) { append(contentsOf: $0) }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        var value = value.bigEndian
        Swift.withUnsafeBytes(of: &value) { append(contentsOf: $0) }
    }
}

/// Journal keys: the sequence number big-endian, so LMDB's byte order is numeric order.
enum SequenceKey {
    static func encode(_ sequence: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        bytes.appendBigEndian(sequence)
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
