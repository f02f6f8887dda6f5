import Determinism
import Foundation
import GRDB
import LosslessJSON
import SyncTesting

/// SmartStore's storage layout in SQLite, through GRDB: one table per soup with the record as
/// a JSON text column and one indexed column per index spec. The baseline the soups must beat.
///
/// GRDB's WAL mode sets `synchronous = NORMAL`: a commit is not synced, so a power loss can lose
/// the last commits (never corrupt the database). `syncsEveryCommit` sets `FULL` instead, which
/// syncs the WAL at every commit, the durability the journal gives every append.
struct SQLiteSoupBaseline {
    let queue: DatabaseQueue

    init(path: String, syncsEveryCommit: Bool = false) throws {
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
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE TABLE_1 (id INTEGER PRIMARY KEY AUTOINCREMENT, soup TEXT, created INTEGER,
                      lastModified INTEGER, TABLE_1_0 TEXT, TABLE_1_1 TEXT, TABLE_1_2 INTEGER, TABLE_1_3 REAL);
                    CREATE INDEX TABLE_1_0_idx ON TABLE_1 (TABLE_1_0);
                    CREATE INDEX TABLE_1_1_idx ON TABLE_1 (TABLE_1_1);
                    CREATE INDEX TABLE_1_2_idx ON TABLE_1 (TABLE_1_2);
                    CREATE INDEX TABLE_1_3_idx ON TABLE_1 (TABLE_1_3);
                    """)
        }
    }

    func insert(_ records: [JSONValue], modified: Int64) throws {
        try queue.write { db in
            let statement = try db.makeStatement(
                sql: """
                    INSERT INTO TABLE_1 (soup, created, lastModified, TABLE_1_0, TABLE_1_1, TABLE_1_2, TABLE_1_3)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
            for record in records {
                try statement.execute(arguments: [
                    record.serializedString, modified, modified, record["Id"]?.string, record["Name"]?.string,
                    record["AnnualRevenue"]?.number?.int64Value, record["Rating"]?.number?.doubleValue,
                ])
            }
        }
    }

    /// Replaces the records with the same `Id`s, as a sync down merges changed records.
    func update(_ records: [JSONValue], modified: Int64) throws {
        try queue.write { db in
            let statement = try db.makeStatement(
                sql: """
                    UPDATE TABLE_1 SET soup = ?, lastModified = ?, TABLE_1_1 = ?, TABLE_1_2 = ?, TABLE_1_3 = ?
                    WHERE TABLE_1_0 = ?
                    """)
            for record in records {
                try statement.execute(arguments: [
                    record.serializedString, modified, record["Name"]?.string,
                    record["AnnualRevenue"]?.number?.int64Value,
                    record["Rating"]?.number?.doubleValue, record["Id"]?.string,
                ])
            }
        }
    }

    /// The record whose `Id` is `id`, parsed, as SmartStore returns it.
    func lookup(id: String) throws -> JSONValue? {
        let text = try queue.read { db in
            try String.fetchOne(db, sql: "SELECT soup FROM TABLE_1 WHERE TABLE_1_0 = ?", arguments: [id])
        }
        return try text.map { try JSONValue(parsing: $0) }
    }

    /// 100 records with `AnnualRevenue ≥ low`, ascending.
    func rangePage(from low: Int64) throws -> [JSONValue] {
        let texts = try queue.read { db in
            try String.fetchAll(
                db, sql: "SELECT soup FROM TABLE_1 WHERE TABLE_1_2 >= ? ORDER BY TABLE_1_2 LIMIT 100", arguments: [low])
        }
        return try texts.map { try JSONValue(parsing: $0) }
    }
}

extension SQLiteSoupBaseline {
    /// The reSync's work on SmartStore's layout: 100 changed records (the sync-down benchmark's
    /// records) updated in one transaction, in a soup of `soupCount`; the median of `repeatCount`.
    static func reSyncSeconds(soupCount: Int, syncsEveryCommit: Bool, repeatCount: Int) throws -> Double {
        let directory = try TemporaryDirectory("bench-sqlite-resync")
        defer { directory.remove() }
        let sqlite = try SQLiteSoupBaseline(
            path: directory.appending("soups.sqlite").path, syncsEveryCommit: syncsEveryCommit)
        var fillGenerator = SplitMix64(seed: 7)
        for start in stride(from: 0, to: soupCount, by: 10_000) {
            let records = (start..<min(start + 10_000, soupCount)).map {
                SyncDownBenchmark.record($0, using: &fillGenerator)
            }
            try sqlite.insert(records, modified: 1)
        }
        var generator = SplitMix64(seed: 11)
        var samples: [Double] = []
        for _ in 0..<repeatCount {
            let changed = (0..<SyncDownBenchmark.changedCount).map { _ in
                SyncDownBenchmark.record(Int.random(in: 0..<soupCount, using: &generator), using: &generator)
            }
            let start = ContinuousClock.now
            try sqlite.update(changed, modified: 2)
            samples.append(SyncDownBenchmark.seconds(ContinuousClock.now - start))
        }
        return samples.sorted()[samples.count / 2]
    }
}
