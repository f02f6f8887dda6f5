public import EventJournal
public import Foundation
import LMDBStore

/// Every projection database of a journal, key by key in key order: what a case's
/// `expected-projections.json` holds.
///
/// Keys and values are written as text when they are printable UTF-8 (soup records are JSON),
/// and as hex (keys) or base64 (values) otherwise. The encoding is one-to-one, so two snapshots
/// have the same file bytes exactly when the databases hold the same bytes. The journal's
/// per-kind entry counts are included as the database `journal.kinds`, as `verify` checks them.
public struct ProjectionSnapshot: Codable, Hashable, Sendable {
    /// One key and its value.
    public struct Entry: Codable, Hashable, Sendable {
        /// The key as text, when it is printable UTF-8.
        public var key: String?
        /// The key in hexadecimal otherwise.
        public var keyHex: String?
        /// The value as text, when it is printable UTF-8.
        public var value: String?
        /// The value in base64 otherwise.
        public var valueBase64: String?
    }

    /// One database and its entries, in key order.
    public struct Database: Codable, Hashable, Sendable {
        /// The database's name.
        public var name: String
        /// Its entries in LMDB key order.
        public var entries: [Entry]
    }

    /// The version of this file's format.
    public static let formatVersion = 1

    /// The version the file was written with.
    public var format: Int
    /// The sequence of the journal's last entry.
    public var lastSequence: UInt64
    /// The databases, sorted by name.
    public var databases: [Database]

    /// Reads every projection database of `journal` from one snapshot.
    public init(_ journal: Journal) throws {
        format = Self.formatVersion
        let names = Set(journal.projections.flatMap(\.databaseNames)).sorted()
        (lastSequence, databases) = try journal.read { reader in
            var databases: [Database] = []
            for name in names {
                var entries: [Entry] = []
                try reader.transaction.withCursor(reader.database(named: name)) { cursor in
                    try cursor.forEach { key, value in
                        entries.append(Entry(key: key, value: value))
                        return true
                    }
                }
                databases.append(Database(name: name, entries: entries))
            }
            let kinds = try reader.kindCounts().sorted { $0.key.rawValue < $1.key.rawValue }.map { kind, count in
                Entry(key: Array(kind.rawValue.utf8), value: Array(String(count).utf8))
            }
            databases.append(Database(name: "journal.kinds", entries: kinds))
            return (try reader.lastSequence, databases.sorted { $0.name < $1.name })
        }
    }

    /// The file's canonical bytes.
    public func encoded() throws -> Data {
        var data = try SessionFiles.prettyEncoder().encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Compares this replayed snapshot with the `expected` file's bytes.
    ///
    /// - Throws: ``SessionReplayError/Code/projectionDiverged`` naming the first database and
    ///   key that differ, or ``SessionReplayError/Code/malformedFile`` when the expected file
    ///   cannot be read as a snapshot.
    public func check(against expected: Data, what: String) throws {
        let actual = try encoded()
        guard actual != expected else { return }
        let recorded: ProjectionSnapshot
        do {
            recorded = try JSONDecoder().decode(ProjectionSnapshot.self, from: expected)
        } catch {
            throw SessionReplayError(
                .malformedFile, "\(SessionFiles.expectedProjections) is not a projection snapshot: \(error)")
        }
        let offset = zip(actual, expected).prefix { $0 == $1 }.count
        let difference =
            firstDifference(from: recorded)
            ?? "the file differs from its canonical form at byte \(offset)"
        throw SessionReplayError(.projectionDiverged, "\(what): \(difference)")
    }

    /// The first database and key where `expected` differs from this snapshot, described.
    func firstDifference(from expected: ProjectionSnapshot) -> String? {
        if format != expected.format { return "format \(format) instead of \(expected.format)" }
        if lastSequence != expected.lastSequence {
            return "last sequence \(lastSequence) instead of \(expected.lastSequence)"
        }
        let mine = Dictionary(databases.map { ($0.name, $0.entries) }) { first, _ in first }
        let theirs = Dictionary(expected.databases.map { ($0.name, $0.entries) }) { first, _ in first }
        for name in Set(mine.keys).union(theirs.keys).sorted() where mine[name] != theirs[name] {
            let actualEntries = mine[name] ?? []
            let expectedEntries = theirs[name] ?? []
            let index = zip(actualEntries, expectedEntries).prefix { $0 == $1 }.count
            let actual = index < actualEntries.count ? actualEntries[index] : nil
            let wanted = index < expectedEntries.count ? expectedEntries[index] : nil
            return Self.describe(
                database: name, actual: actual, expected: wanted, laterExpected: expectedEntries[index...])
        }
        return databases == expected.databases ? nil : "the databases are listed in a different order"
    }

    /// Up to 30 bytes either side of `offset`, so the difference shows even in a long record.
    private static func excerpt(_ bytes: [UInt8], at offset: Int) -> String {
        let slice = bytes[min(bytes.count, max(0, offset - 30))..<min(bytes.count, offset + 30)]
        return "\"…" + String(decoding: slice, as: UTF8.self) + "…\""
    }

    private static func describe(
        database: String, actual: Entry?, expected: Entry?, laterExpected: ArraySlice<Entry>
    ) -> String {
        switch (actual, expected) {
        case (let actual?, let expected?) where actual.keyDescription == expected.keyDescription:
            let replayed = Array(actual.valueText.utf8)
            let wanted = Array(expected.valueText.utf8)
            let offset = zip(replayed, wanted).prefix { $0 == $1 }.count
            return "projection \(database) key \(actual.keyDescription) differs at byte \(offset) of its value: "
                + "replayed \(Self.excerpt(replayed, at: offset)), expected \(Self.excerpt(wanted, at: offset))"
        case (let actual?, let expected?):
            // Entries are in key order: a replayed key found further on means the expected one is missing.
            if laterExpected.contains(where: { $0.keyDescription == actual.keyDescription }) {
                return "projection \(database) key \(expected.keyDescription) is expected but missing from the replay"
            }
            return "projection \(database) key \(actual.keyDescription) was replayed but is not expected"
        case (nil, let expected?):
            return "projection \(database) key \(expected.keyDescription) is expected but missing from the replay"
        case (let actual?, nil):
            return "projection \(database) key \(actual.keyDescription) was replayed but is not expected"
        case (nil, nil):
            return "projection \(database) differs"
        }
    }
}

extension ProjectionSnapshot.Entry {
    init(key: [UInt8], value: [UInt8]) {
        if let text = Self.printable(key) {
            self.key = text
        } else {
            keyHex = key.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        }
        if let text = Self.printable(value) {
            self.value = text
        } else {
            valueBase64 = Data(value).base64EncodedString()
        }
    }

    var keyDescription: String {
        key.map { "\"\($0)\"" } ?? "0x" + (keyHex ?? "")
    }

    /// The value as written in the file, base64 marked as such.
    var valueText: String {
        value ?? "base64:" + (valueBase64 ?? "")
    }

    /// The bytes as text when they are UTF-8 without control characters.
    private static func printable(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return text
    }
}
