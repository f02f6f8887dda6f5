import Determinism
public import EventJournal
import LosslessJSON

/// Which entries `journal-replay log` lists, and how it prints each: shared with the web
/// inspector so both answer the same question the same way.
///
/// Filters combine: an entry is listed when it matches every one given.
public struct JournalLog: Sendable, Hashable {
    /// Only entries of this kind.
    public var kind: String?
    /// Only entries whose header names this soup.
    public var soup: String?
    /// Only entries of this sync, by id or by name (a name also selects the entries that name
    /// only its id, such as fetched pages).
    public var sync: String?
    /// The first sequence to list (the journal's horizon when `nil`).
    public var from: UInt64?
    /// The last sequence to list (the journal's last entry when `nil`).
    public var to: UInt64?

    /// Creates a listing with the given filters.
    ///
    /// - Parameters:
    ///   - kind: only entries of this kind.
    ///   - soup: only entries whose header names this soup.
    ///   - sync: only entries of this sync, by id or name.
    ///   - from: the first sequence to list.
    ///   - to: the last sequence to list.
    public init(kind: String? = nil, soup: String? = nil, sync: String? = nil, from: UInt64? = nil, to: UInt64? = nil) {
        self.kind = kind
        self.soup = soup
        self.sync = sync
        self.from = from
        self.to = to
    }

    /// Calls `body` with each listed entry in journal order, in one snapshot.
    ///
    /// - Parameters:
    ///   - journal: the journal to read.
    ///   - body: receives each listed entry.
    /// - Throws: `JournalError.belowHorizon` when ``from`` lies before the horizon, or what
    ///   reading the journal throws.
    public func forEachEntry(in journal: Journal, _ body: (JournalEntry) throws -> Void) throws {
        try journal.read { reader in
            let last = min(to ?? UInt64.max, try reader.lastSequence)
            // Asked from below the horizon, the reader answers with an error naming it.
            let start = max(1, try from ?? reader.firstSequence)
            guard last >= start, last > 0 else { return }
            let syncIds = try sync.map { try Self.ids(ofSyncsNamed: $0, in: reader) } ?? []
            try reader.forEachEntry(in: start...last) { entry in
                if matches(entry, syncIds: syncIds) { try body(entry) }
                return true
            }
        }
    }

    /// The listed entries as `log --json` prints them: one array of export lines' objects.
    ///
    /// - Parameter journal: the journal to read.
    /// - Returns: the JSON text, without a trailing newline.
    /// - Throws: what ``forEachEntry(in:_:)`` throws.
    public func jsonArray(in journal: Journal) throws -> [UInt8] {
        var bytes = Array("[".utf8)
        var first = true
        try forEachEntry(in: journal) { entry in
            if !first { bytes.append(UInt8(ascii: ",")) }
            bytes += Journal.exportLine(for: entry).dropLast()
            first = false
        }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    private func matches(_ entry: JournalEntry, syncIds: Set<String>) -> Bool {
        if let kind, entry.kind.rawValue != kind { return false }
        if let soup, entry.header["soup"]?.string != soup { return false }
        if let sync {
            let name = entry.header["syncName"]?.string
            let id = entry.header["syncId"]?.description
            if name != sync && id != sync && !(id.map(syncIds.contains) ?? false) { return false }
        }
        return true
    }

    /// The ids of the syncs that the whole journal names `name`: only a sync's state entries
    /// carry its name, and a name can be given again to a new sync once the old one is deleted.
    private static func ids(ofSyncsNamed name: String, in reader: JournalReader) throws -> Set<String> {
        var ids: Set<String> = []
        let (first, last) = (try reader.firstSequence, try reader.lastSequence)
        guard last >= first else { return ids }
        try reader.forEachEntry(in: first...last) { entry in
            if entry.header["syncName"]?.string == name, let id = entry.header["syncId"] {
                ids.insert(id.description)
            }
            return true
        }
        return ids
    }

    /// The line `log` prints for `entry`: sequence, time, kind, header and the start of the
    /// payload.
    ///
    /// - Parameter entry: the entry to describe.
    /// - Returns: one line, without a newline.
    public static func line(for entry: JournalEntry) -> String {
        let header = entry.header.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let payload: String
        switch entry.payloadFormat {
        case .json:
            let text = String(decoding: entry.payload, as: UTF8.self)
            payload = text.count > 100 ? String(text.prefix(100)) + "…" : text
        case .binary:
            payload = "\(entry.payload.count) bytes"
        }
        return "#\(entry.sequence) \(entry.timestamp.salesforceFormat) \(entry.kind) \(header) \(payload)"
    }
}
