import LosslessJSON
import MobileSync
import Soups

extension SmartStoreReader {
    /// A soup table's records in `id` order, each checked.
    mutating func readRecords(_ table: String) throws -> [SmartStoreRecord] {
        var records: [SmartStoreRecord] = []
        let sql = "SELECT id, soup, created, lastModified FROM \"\(table)\" ORDER BY id"
        let name = file.name
        var read = rowsRead
        let total = rowsTotal
        let progress = progress
        try file.forEachRow(sql, table: table) { row in
            records.append(try Self.record(row, table: table, file: name))
            read += 1
            if read % SmartStoreDatabase.progressRowInterval == 0 {
                progress?(SmartStoreImportProgress(phase: .reading, done: read, total: total))
            }
        }
        rowsRead = read
        return records
    }

    /// One row of a soup table as a record: its JSON object with SmartStore's bookkeeping fields
    /// set from the row's columns, which SmartStore writes together with them on every save.
    private static func record(_ row: SQLiteRow, table: String, file: String) throws -> SmartStoreRecord {
        guard let entryId = row.integer(0), entryId > 0 else {
            throw SmartStoreImportError(
                .malformedRecord, "\(file): a row of \(table) has no positive integer id", table: table)
        }
        func malformed(_ reason: String, cause: (any Error)? = nil) -> SmartStoreImportError {
            SmartStoreImportError(
                .malformedRecord, "\(file): record \(entryId) of \(table) \(reason)", table: table, row: entryId,
                cause: cause)
        }
        guard let bytes = row.bytes(1) else { throw malformed("has no JSON in its soup column") }
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: bytes)
        } catch {
            throw malformed("is not JSON: \(error)", cause: error)
        }
        guard case .object(var members) = parsed else { throw malformed("is not a JSON object") }
        let jsonModified = members[SoupStore.lastModifiedDateField]?.number?.int64Value
        guard let lastModified = row.integer(3) ?? jsonModified else {
            throw malformed("has no lastModified date")
        }
        // A NULL created date is one SmartStore never wrote: the record dates from its last save.
        guard row.isNull(2) || row.integer(2) != nil else {
            throw malformed("has a created date that is not an integer")
        }
        let created = row.integer(2) ?? lastModified
        members[SoupStore.entryIdField] = .number(JSONNumber(entryId))
        members[SoupStore.lastModifiedDateField] = .number(JSONNumber(lastModified))
        return SmartStoreRecord(
            entryId: entryId, createdDate: created, lastModifiedDate: lastModified, json: .object(members))
    }

    /// The syncs `syncs_soup` holds, RUNNING ones stopped: no run survives the app that ran it.
    static func syncs(of records: [SmartStoreRecord], table: String) throws -> [SyncState] {
        var syncs: [SyncState] = []
        var names: Set<String> = []
        for record in records {
            var state: SyncState
            do {
                state = try SyncState(json: record.json)
            } catch {
                throw SmartStoreImportError(
                    .malformedSync, "sync \(record.entryId) of \(table) (syncs_soup) does not parse: \(error.message)",
                    table: table, row: record.entryId, cause: error)
            }
            if let name = state.name, !names.insert(name).inserted {
                throw SmartStoreImportError(
                    .malformedSync, "sync \(record.entryId) of \(table) (syncs_soup) repeats the name '\(name)'",
                    table: table, row: record.entryId)
            }
            state.stopAfterInterruptedRun()
            syncs.append(state)
        }
        return syncs
    }

    /// The highest sync id a record names in `__sync_id__`.
    static func highestSyncId(namedBy records: [SmartStoreRecord]) -> Int64 {
        records.reduce(0) { highest, record in max(highest, record.json[LocalFlags.syncId]?.number?.int64Value ?? 0) }
    }
}
