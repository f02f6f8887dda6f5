import Determinism
public import Foundation
import LosslessJSON

// Export format (docs/journal-format.md): one JSON object per line, keys sorted:
// {"checksum":…,"header":{…},"kind":"…","payload":<JSON>|"payloadBase64":"…","payloadFormat":"json"|"binary",
//  "sequence":…,"timestamp":…,"version":1}
// A JSON payload is inlined byte for byte when it has no line break and no surrounding white space,
// so that the file stays one entry per line and import gives back the exact bytes.
extension Journal {
    /// Writes the entries from the horizon (1 unless the journal was compacted) through
    /// `sequence` (all by default) as JSON lines.
    ///
    /// Each call of `write` receives one line, newline included. The output is a pure function
    /// of the entries: exporting, importing and exporting again gives the same bytes.
    /// - Returns: the number of entries written.
    @discardableResult
    public func export(upTo sequence: UInt64? = nil, to write: (_ line: [UInt8]) throws -> Void) throws -> UInt64 {
        try read { reader in
            let last = min(sequence ?? UInt64.max, try reader.lastSequence)
            let first = try reader.firstSequence
            guard last >= first else { return 0 }
            try reader.forEachEntry(in: first...last) { entry in
                try write(Self.exportLine(for: entry))
                return true
            }
            return last - first + 1
        }
    }

    /// Appends the entries of a JSON-lines export to this journal, applying every projection.
    ///
    /// The file is checked completely before anything is written: each line must parse, carry
    /// a checksum matching its contents, and continue the sequence (starting right after this
    /// journal's last entry). Then entries are stored in transactions of
    /// ``JournalOptions/rebuildBatchSize``.
    /// - Parameters:
    ///   - file: the export, as ``export(upTo:to:)`` writes it.
    ///   - progress: called after each batch with (entries imported, entries in the file).
    /// - Returns: the number of entries imported.
    /// - Throws: ``JournalError/Code/malformedExport`` naming the line for a bad file; nothing
    ///   is imported then.
    @discardableResult
    public func importEntries(
        from file: URL, progress: ((_ imported: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws -> UInt64 {
        let first = try lastSequence() + 1
        var expected = first
        try JSONLinesFile.forEachLine(in: file) { lineNumber, line in
            let entry = try Self.parseExportLine(line, lineNumber: lineNumber)
            guard entry.sequence == expected else {
                throw JournalError(
                    .malformedExport,
                    "\(file.lastPathComponent) line \(lineNumber): entry \(entry.sequence) does not continue the "
                        + "journal, which expects entry \(expected)")
            }
            expected += 1
        }
        let total = expected - first
        var batch: [JournalEntry] = []
        var imported: UInt64 = 0
        func flush() throws {
            guard !batch.isEmpty else { return }
            try write { writer in
                for entry in batch {
                    // Another writer may have appended since the file was checked.
                    guard entry.sequence == writer.nextSequence else {
                        throw JournalError(
                            .gap,
                            "the journal changed during the import: entry \(writer.nextSequence) was appended "
                                + "by someone else; \(imported) entries were imported", sequence: writer.nextSequence)
                    }
                    try writer.store(entry)
                }
            }
            imported += UInt64(batch.count)
            batch.removeAll(keepingCapacity: true)
            progress?(imported, total)
        }
        try JSONLinesFile.forEachLine(in: file) { lineNumber, line in
            batch.append(try Self.parseExportLine(line, lineNumber: lineNumber))
            if batch.count >= options.rebuildBatchSize { try flush() }
        }
        try flush()
        return imported
    }

    /// One entry as its export line, newline included (the format of ``export(upTo:to:)``).
    public static func exportLine(for entry: JournalEntry) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(entry.payload.count + 200)
        func member(_ name: String, first: Bool = false) {
            if !first { line.append(UInt8(ascii: ",")) }
            JSONValue.string(name).write(into: &line)
            line.append(UInt8(ascii: ":"))
        }
        line.append(UInt8(ascii: "{"))
        let envelope = entry.envelope()
        member("checksum", first: true)
        line.append(contentsOf: String(JournalEntry.storedChecksum(ofEnvelope: envelope)).utf8)
        member("header")
        JSONValue.object(entry.header.mapValues(\.jsonValue)).write(into: &line)
        member("kind")
        JSONValue.string(entry.kind.rawValue).write(into: &line)
        if entry.payloadFormat == .json && isInlinable(entry.payload) {
            member("payload")
            line.append(contentsOf: entry.payload)
        } else {
            member("payloadBase64")
            JSONValue.string(Data(entry.payload).base64EncodedString()).write(into: &line)
        }
        member("payloadFormat")
        JSONValue.string(entry.payloadFormat == .json ? "json" : "binary").write(into: &line)
        member("sequence")
        line.append(contentsOf: String(entry.sequence).utf8)
        member("timestamp")
        line.append(contentsOf: String(entry.timestamp.millisecondsSinceEpoch).utf8)
        member("version")
        line.append(contentsOf: String(JournalEntry.envelopeVersion).utf8)
        line.append(contentsOf: "}\n".utf8)
        return line
    }

    private static func isInlinable(_ payload: [UInt8]) -> Bool {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = payload.first, let last = payload.last, !isWhitespace(first), !isWhitespace(last) else {
            return false
        }
        return !payload.contains(0x0A) && !payload.contains(0x0D)
    }

    static func parseExportLine(_ line: [UInt8], lineNumber: Int) throws -> JournalEntry {
        func malformed(_ reason: String) -> JournalError {
            JournalError(.malformedExport, "export line \(lineNumber): \(reason)")
        }
        let parsed: (value: JSONValue, span: Range<Int>?)
        do {
            parsed = try JSONValue.parse(line, recordingSpanOfMember: "payload")
        } catch {
            throw malformed("\(error)")
        }
        let value = parsed.value
        guard let version = value["version"]?.number?.int64Value, version == Int64(JournalEntry.envelopeVersion) else {
            throw malformed("missing or unsupported \"version\"")
        }
        guard let sequence = value["sequence"]?.number?.int64Value, sequence > 0,
            let timestamp = value["timestamp"]?.number?.int64Value,
            let kind = value["kind"]?.string,
            let checksum = value["checksum"]?.number?.int64Value,
            let formatName = value["payloadFormat"]?.string,
            let headerMembers = value["header"]?.object
        else { throw malformed("missing or mistyped fields") }
        let format: JournalEntry.PayloadFormat
        switch formatName {
        case "json": format = .json
        case "binary": format = .binary
        default: throw malformed("unknown payloadFormat \"\(formatName)\"")
        }
        var header: [String: JournalEntry.HeaderValue] = [:]
        for (name, member) in headerMembers {
            switch member {
            case .string(let text): header[name] = .string(text)
            case .bool(let flag): header[name] = .bool(flag)
            case .number(let number):
                guard let integer = number.int64Value else { throw malformed("header \(name) is not an integer") }
                header[name] = .integer(integer)
            default: throw malformed("header \(name) must be a string, an integer or a Boolean")
            }
        }
        let payload: [UInt8]
        if let span = parsed.span {
            payload = Array(line[span])
        } else if let encoded = value["payloadBase64"]?.string, let data = Data(base64Encoded: encoded) {
            payload = Array(data)
        } else {
            throw malformed("missing payload")
        }
        let draft = JournalEntry.Draft(
            kind: JournalEntry.Kind(rawValue: kind), header: header, payload: payload, payloadFormat: format)
        do {
            try JournalEntry.validate(draft)
        } catch {
            throw malformed(error.message)
        }
        let entry = JournalEntry(
            sequence: UInt64(sequence), kind: draft.kind, timestamp: WallTime(millisecondsSinceEpoch: timestamp),
            header: header, payload: payload, payloadFormat: format)
        guard Int64(JournalEntry.storedChecksum(ofEnvelope: entry.envelope())) == checksum else {
            throw malformed("checksum \(checksum) does not match the entry's contents")
        }
        return entry
    }
}

extension JournalEntry.HeaderValue {
    var jsonValue: JSONValue {
        switch self {
        case .string(let value): .string(value)
        case .integer(let value): .number(JSONNumber(value))
        case .bool(let value): .bool(value)
        }
    }
}
