import BenchmarkSupport
import Determinism
import Foundation
import GRDB
import LosslessJSON
import SyncTesting

/// SmartStore's storage layout (``SmartStoreLayout``) in SQLite, through GRDB: one table per
/// soup with the record as a JSON text column and one indexed column per index spec. The
/// baseline the soups must beat.
///
/// GRDB's WAL mode sets `synchronous = NORMAL`: a commit is not synced, so a power loss can lose
/// the last commits (never corrupt the database). `syncsEveryCommit` sets `FULL` instead, which
/// syncs the WAL at every commit, the durability the journal gives every append.
struct SQLiteSoupBaseline {
    let queue: DatabaseQueue
    let path: String

    init(path: String, syncsEveryCommit: Bool = false) throws {
        self.path = path
        var configuration = Configuration()
        configuration.journalMode = .wal

        queue = try DatabaseQueue(path: path, configuration: configuration)
        // After opening: GRDB sets NORMAL when it turns WAL on, after `prepareDatabase`.
        if syncsEveryCommit {
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        }
        let synchronous = try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        guard synchronous == (syncsEveryCommit ? 2 : 1) else {
            throw DatabaseError(message: "SQLite's synchronous setting is \(synchronous ?? -1), not the one asked for")
        }
        // SQLCipher answers this pragma; SQLite ignores it. The SQLCipher baseline runs in its own
        // process, so this one must be plain SQLite.
        let cipher = try queue.read { db in try String.fetchOne(db, sql: "PRAGMA cipher_version") }
        guard cipher == nil else {
            throw DatabaseError(message: "the SQLite baseline is linked with SQLCipher \(cipher ?? "")")
        }
        try queue.write { db in try db.execute(sql: SmartStoreLayout.createStatements) }
    }

    func insert(_ records: [JSONValue], modified: Int64) throws {
        try queue.write { db in
            let statement = try db.makeStatement(sql: SmartStoreLayout.insertStatement)
            for record in records {
                let row = SmartStoreLayout.Row(record)
                try statement.execute(arguments: [
                    row.soup, modified, modified, row.id, row.name, row.annualRevenue, row.rating,
                ])
            }
        }
    }

    /// Replaces the records with the same `Id`s, as a sync down merges changed records.
    func update(_ records: [JSONValue], modified: Int64) throws {
        try queue.write { db in
            let statement = try db.makeStatement(sql: SmartStoreLayout.updateStatement)
            for record in records {
                let row = SmartStoreLayout.Row(record)
                try statement.execute(arguments: [row.soup, modified, row.name, row.annualRevenue, row.rating, row.id])
            }
        }
    }

    /// The database and its WAL, in bytes, as they are now.
    func fileBytes() -> Int {
        SmartStoreLayout.storeBytes(databasePath: path)
    }
}

extension SQLiteSoupBaseline: SoupWorkloadStore {
    func insert(_ records: [JSONValue]) throws {
        try insert(records, modified: SmartStoreLayout.modifiedMilliseconds)
    }

    /// The record whose `Id` is `id`, parsed, as SmartStore returns it.
    func lookup(id: String) throws -> JSONValue? {
        let text = try queue.read { db in
            try String.fetchOne(db, sql: SmartStoreLayout.lookupStatement, arguments: [id])
        }
        return try text.map { try JSONValue(parsing: $0) }
    }

    func rangePage(from low: Int64) throws -> [JSONValue] {
        let texts = try queue.read { db in
            try String.fetchAll(db, sql: SmartStoreLayout.rangePageStatement, arguments: [low])
        }
        return try texts.map { try JSONValue(parsing: $0) }
    }

    func storeBytes() throws -> Int {
        fileBytes()
    }
}

extension SQLiteSoupBaseline {
    /// The reSync's work on SmartStore's layout: 100 changed records (the sync-down benchmark's
    /// records) updated in one transaction, in a soup of `soupCount`; the median of `repeatCount`.
    static func reSyncSeconds(
        soupCount: Int, shape: RecordShape = .lorem, syncsEveryCommit: Bool, repeatCount: Int
    ) throws -> Double {
        let directory = try TemporaryDirectory("bench-sqlite-resync")
        defer { directory.remove() }
        let sqlite = try SQLiteSoupBaseline(
            path: directory.appending("soups.sqlite").path, syncsEveryCommit: syncsEveryCommit)
        var fillGenerator = SplitMix64(seed: 7)
        for start in stride(from: 0, to: soupCount, by: 10_000) {
            let records = (start..<min(start + 10_000, soupCount)).map {
                SyncDownBenchmark.record($0, shape: shape, using: &fillGenerator)
            }
            try sqlite.insert(records, modified: 1)
        }
        var generator = SplitMix64(seed: 11)
        var samples: [Double] = []
        for _ in 0..<repeatCount {
            let changed = (0..<SyncDownBenchmark.changedCount).map { _ in
                SyncDownBenchmark.record(
                    Int.random(in: 0..<soupCount, using: &generator), shape: shape, using: &generator)
            }
            let start = ContinuousClock.now
            try sqlite.update(changed, modified: 2)
            samples.append((ContinuousClock.now - start).inSeconds)
        }
        return samples.sorted()[samples.count / 2]
    }
}
