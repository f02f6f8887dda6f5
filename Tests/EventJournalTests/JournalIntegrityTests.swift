import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

@Suite struct JournalIntegrityTests {
    /// Flips one byte of the stored envelope of entry `sequence`, bypassing the journal.
    private func flipByte(at offset: Int, ofEntry sequence: UInt64, in journal: Journal) throws {
        let entries = try journal.journalEnvironment.database(named: "journal.entries")
        let key = withUnsafeBytes(of: sequence.bigEndian) { Array($0) }
        try journal.journalEnvironment.write { transaction in
            var value = try #require(try transaction.get(entries, key: key))
            value[offset % value.count] ^= 0x01
            try transaction.put(entries, key: key, value: value)
        }
    }

    @Test(arguments: [0, 1, 5, 19, 40, 70, 10_000])
    func aFlippedByteIsACorruptionErrorNamingTheSequence(offset: Int) throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...5).map { note("text \($0)", $0) })
        try flipByte(at: offset, ofEntry: 3, in: journal)
        #expect(try journal.entry(at: 2) != nil)
        let error = try #require(throws: JournalError.self) { try journal.entry(at: 3) }
        #expect(error.code == .corruptEntry)
        #expect(error.sequence == 3)
        #expect(error.message.contains("entry 3"))
        #expect(try #require(throws: JournalError.self) { try journal.verify() }.code == .corruptEntry)
        #expect(try #require(throws: JournalError.self) { try journal.entries(in: 1...5) }.code == .corruptEntry)
    }

    /// An append reads only the last entry's fixed fields: a flipped payload byte there is left for
    /// reads and `verify` to report, while a last entry naming another sequence stops the append.
    @Test func anAppendChecksTheLastEntrysSequenceButLeavesItsPayloadToReads() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...3).map { note("text \($0)", $0) })
        try flipByte(at: 40, ofEntry: 3, in: journal)
        #expect(try journal.append([note("text 4", 4)]).map(\.sequence) == [4])
        #expect(try #require(throws: JournalError.self) { try journal.entry(at: 3) }.code == .corruptEntry)

        try flipByte(at: 2, ofEntry: 4, in: journal)  // the low byte of the stored sequence
        let error = try #require(throws: JournalError.self) { try journal.append([note("text 5", 5)]) }
        #expect(error.code == .corruptEntry)
        #expect(error.sequence == 4)
        #expect(try journal.entry(at: 5) == nil)
    }

    @Test func aMissingEntryIsReportedAsAGap() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...5).map { note("text \($0)", $0) })
        let entries = try journal.journalEnvironment.database(named: "journal.entries")
        _ = try journal.journalEnvironment.write {
            try $0.delete(entries, key: withUnsafeBytes(of: UInt64(3).bigEndian) { Array($0) })
        }
        let error = try #require(throws: JournalError.self) { try journal.entries(in: 1...5) }
        #expect(error.code == .gap)
        #expect(error.sequence == 3)
    }

    @Test func verifyFindsNoDivergenceInAHealthyJournal() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...300).map { note("text \($0)", $0) })
        let report = try journal.verify()
        #expect(report.isConsistent)
        #expect(report.lastSequence == 300)
    }

    @Test func verifyReportsTheFirstDivergentKeyOfATamperedProjection() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append([note("a", 1), JournalEntry.Draft(kind: "zeta")])
        let counts = try journal.projectionEnvironment.database(named: KindCountsProjection.databaseName)
        try journal.projectionEnvironment.write { transaction in
            try transaction.put(counts, key: Array("note.added".utf8), value: [UInt8](repeating: 9, count: 16))
            try transaction.put(counts, key: Array("bogus".utf8), value: [1])
        }
        let report = try journal.verify()
        #expect(!report.isConsistent)
        let divergence = try #require(report.divergences.first)
        #expect(divergence.database == KindCountsProjection.databaseName)
        #expect(divergence.key == Array("bogus".utf8))
        #expect(divergence.rebuilt == nil)
        #expect(divergence.description.contains("bogus"))
    }

    @Test func rebuildRestoresTamperedProjections() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...50).map { note("text \($0)", $0) })
        let counts = try journal.projectionEnvironment.database(named: KindCountsProjection.databaseName)
        try journal.projectionEnvironment.write { try $0.clear(counts) }
        #expect(!(try journal.verify().isConsistent))
        var batches: [UInt64] = []
        var options = JournalOptions()
        options.rebuildBatchSize = 20
        let small = try fixture.open(options: options)
        try small.rebuild { folded, _ in batches.append(folded) }
        #expect(batches == [20, 40, 50])
        #expect(try small.verify().isConsistent)
    }

    @Test func aChangedProjectionVersionIsRebuiltOnOpen() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        do {
            let journal = try fixture.open(version: 1)
            try journal.append((1...10).map { note("text \($0)", $0) })
            let counts = try journal.projectionEnvironment.database(named: KindCountsProjection.databaseName)
            try journal.projectionEnvironment.write { try $0.clear(counts) }
        }
        let reopened = try fixture.open(version: 2)
        #expect(try reopened.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 10])
        #expect(try reopened.verify().isConsistent)
    }

    /// What a crash in the middle of a rebuild leaves: projections folded through an earlier
    /// entry than the journal's last. Opening folds the rest.
    @Test func projectionsBehindTheJournalAreFoldedToItsEndOnOpen() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        do {
            var options = JournalOptions()
            options.rebuildBatchSize = 4
            let journal = try fixture.open(options: options)
            try journal.append((1...10).map { note("text \($0)", $0) })
            var seen: [UInt64] = []
            try journal.rebuild { folded, _ in seen.append(folded) }
            #expect(seen == [4, 8, 10])
            let counts = try journal.projectionEnvironment.database(named: KindCountsProjection.databaseName)
            let fold = try journal.projectionEnvironment.database(named: "journal.fold")
            let kinds = try journal.projectionEnvironment.database(named: "journal.kinds")
            try journal.projectionEnvironment.write { transaction in
                try transaction.clear(counts)
                try transaction.clear(kinds)
                var mark: [UInt8] = withUnsafeBytes(of: UInt64(0).bigEndian) { Array($0) }
                mark += [0, 0, 0, 0]
                try transaction.put(fold, key: Array("folded-through".utf8), value: mark)
            }
        }
        let reopened = try fixture.open()
        #expect(reopened.openingReport.foldedEntries == 10)
        #expect(reopened.openingReport.projections == .trusted)
        #expect(try reopened.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 10])
        #expect(try reopened.verify().isConsistent)
    }

    @Test func rebuildUpToASequenceMaterializesThePast() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...10).map { note("text \($0)", $0) } + [JournalEntry.Draft(kind: "late")])
        let past = try Environment(directory: fixture.directory.appending("past"))
        #expect(try journal.rebuild(upTo: 4, into: past) == 4)
        let counts = try past.database(named: KindCountsProjection.databaseName)
        let stored = try past.read { try $0.get(counts, key: Array("note.added".utf8)) }
        #expect(stored?.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } == 4)
        #expect(try past.read { try $0.get(counts, key: Array("late".utf8)) } == nil)
    }

    @Test func aNewerFormatIsRefusedAndAnUnknownOlderOneNeedsMigration() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        for (stored, expected) in [(Journal.formatVersion + 1, JournalError.Code.newerFormat), (0, .needsMigration)] {
            do {
                let journal = try fixture.open()
                let meta = try journal.journalEnvironment.database(named: "journal.meta")
                try journal.journalEnvironment.write { transaction in
                    try transaction.put(
                        meta, key: Array("format-version".utf8),
                        value: withUnsafeBytes(of: stored.bigEndian) { Array($0) })
                }
            }
            let error = try #require(throws: JournalError.self) { try fixture.open() }
            #expect(error.code == expected)
            #expect(error.message.contains("format \(stored)"))
            let meta = try Environment(
                directory: fixture.directory.appending("store").appendingPathComponent("journal"))
            let database = try meta.database(named: "journal.meta")
            try meta.write { transaction in
                try transaction.put(
                    database, key: Array("format-version".utf8),
                    value: withUnsafeBytes(of: Journal.formatVersion.bigEndian) { Array($0) })
            }
        }
    }
}
