import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

@testable import Soups

/// A compacted store written by version 2 of the soup projection (tokens with diacritics, no
/// creation dates) opens with version 3 by migrating in place (decision 0010).
@Suite struct SoupProjectionMigrationTests {
    private static let texts = ["Café au lait", "naïve CAFE", "plain text"]

    /// Version 2's tokens: lowercased runs, diacritics kept.
    private static func versionTwoTokens(_ text: String) -> [String] {
        text.split(whereSeparator: { !FullTextTokenizer.isTokenScalar($0.unicodeScalars.first ?? " ") })
            .map { $0.lowercased() }
    }

    /// Turns the closed store's projections back into what version 2 wrote: its tokens, no
    /// creation dates, and its signature.
    private static func writeVersionTwoState(in store: URL) throws {
        let environment = try Environment(
            directory: store.appendingPathComponent("projections"), options: EnvironmentOptions(),
            sealer: ValueChecksummer())
        let databases = SoupDatabases { name in
            (try? environment.database(named: name)) ?? { preconditionFailure("no database \(name)") }()
        }
        let fold = try environment.database(named: "journal.fold")
        try environment.write { transaction in
            var lists: [([UInt8], IndexEntries)] = []
            try transaction.withCursor(databases.recordKeys) { cursor in
                try cursor.forEach { key, value in
                    lists.append((key, IndexEntries(decoding: value)))
                    return true
                }
            }
            try transaction.clear(databases.fullText)
            for (recordKey, var entries) in lists {
                let record = try SoupState.parse(try #require(try transaction.get(databases.records, key: recordKey)))
                let soupId = UInt32(readBigEndian(recordKey.prefix(4)))
                let indexId = try #require(entries.tokenKeys.first.map(SoupDatabases.indexId(ofKey:)))
                let entryId = SoupDatabases.entryId(ofKey: recordKey)
                entries.tokenKeys = Set(versionTwoTokens(record["Text"]?.string ?? "")).sorted().map {
                    IndexEntries.tokenKey(soupId, indexId, $0, entryId)
                }
                entries.createdDate = nil
                for key in entries.tokenKeys { try transaction.put(databases.fullText, key: key, value: []) }
                try transaction.put(databases.recordKeys, key: recordKey, value: entries.encoded)
            }
            let signature = String(
                decoding: try #require(try transaction.get(fold, key: Array("projections".utf8))), as: UTF8.self)
            #expect(signature.contains("soups@4"))
            try transaction.put(
                fold, key: Array("projections".utf8),
                value: Array(signature.replacingOccurrences(of: "soups@4", with: "soups@2").utf8))
        }
    }

    @Test func aCompactedVersionTwoStoreFindsCafeForCafeAndKeepsItsDatesAfterMigrating() throws {
        let fixture = try SoupFixture("soups-migration")
        defer { fixture.remove() }
        try fixture.store.registerSoup(
            "notes", indexSpecs: [IndexSpec(path: "Name", type: .string), IndexSpec(path: "Text", type: .fullText)])
        for (index, text) in Self.texts.enumerated() {
            try fixture.store.create("notes", ["Name": .string("n\(index)"), "Text": .string(text)])
        }
        let foldedByVersionThree = try fixture.projectionState()["soups.fulltext"]
        try fixture.journal.compact(retention: RetentionPolicy(entryCount: 1))
        try fixture.journal.close()
        try Self.writeVersionTwoState(in: fixture.directory.appending("store"))

        let reopened = try SoupFixture.reopen(fixture, encryption: nil)
        #expect(reopened.journal.openingReport.migratedProjectionsFrom?.contains("soups@2") == true)
        #expect(try reopened.projectionState()["soups.fulltext"] == foldedByVersionThree)
        let cafe = try reopened.store.query(.match("notes", expression: "cafe", pageSize: 10))
        #expect(cafe.compactMap { $0["Name"]?.string } == ["n0", "n1"])

        // Records migrated without a creation date read their last modification date as one,
        // and keep that date through an update.
        let sql =
            "select {notes:_soupCreatedDate}, {notes:_soupLastModifiedDate}, {notes:_soupEntryId} from {notes} "
            + "where {notes:Name} = 'n0'"
        let before = try #require(try reopened.store.query(.smart(sql: sql, pageSize: 10)).first?.array)
        #expect(before[0] == before[1])
        try reopened.store.updateLocally(
            "notes", entryId: try #require(before[2].number?.int64Value), changes: ["Text": "au lait"])
        let after = try #require(try reopened.store.query(.smart(sql: sql, pageSize: 10)).first?.array)
        #expect(after[0] == before[0])
        #expect(after[1] != before[1])
    }
}
