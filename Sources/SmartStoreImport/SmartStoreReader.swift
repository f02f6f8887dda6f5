import LosslessJSON
import MobileSync
import Soups

/// Reads a SmartStore database's soups, records and syncs into values, checking each row.
///
/// The schema is the one SmartStore creates (Android `SmartStore.registerSoup`, iOS
/// `SFSmartStore`): `soup_attrs(id, soupName, …)` names each soup, whose records live in
/// `TABLE_<id>(id, soup, created, lastModified, <index columns>)`; `soup_index_map(soupName,
/// path, columnName, columnType)` lists the index specs in declaration order. Databases older
/// than `soup_attrs` call it `soup_names`.
struct SmartStoreReader {
    let file: SQLiteFile
    let progress: (@Sendable (SmartStoreImportProgress) -> Void)?
    var soups: [SmartStoreSoup] = []
    var syncs: [SyncState] = []
    var nextEntryId: Int64 = 1
    var nextSyncId: Int64 = 1
    /// The database's tables by lower-cased name (SQLite's names are case-insensitive).
    var tables: [String: String] = [:]
    var rowsRead: Int64 = 0
    var rowsTotal: Int64 = 0

    init(file: SQLiteFile, progress: (@Sendable (SmartStoreImportProgress) -> Void)?) throws {
        self.file = file
        self.progress = progress
        var tables: [String: String] = [:]
        try file.forEachRow("SELECT name FROM sqlite_master WHERE type = 'table'", table: "sqlite_master") { row in
            if let name = row.text(0) { tables[name.lowercased()] = name }
        }
        self.tables = tables
    }

    /// Reads the whole database; throws ``SmartStoreImportError`` at the first row at fault.
    mutating func read() throws {
        guard tables["soup_index_map"] != nil, let attributes = tables["soup_attrs"] ?? tables["soup_names"] else {
            throw SmartStoreImportError(
                .notASmartStore, "\(file.name) is an SQLite database without SmartStore's soup_attrs and soup_index_map"
            )
        }
        try refuseUnfinishedAlterations()
        let registered = try readSoupAttributes(attributes)
        let specs = try readIndexMap()
        let sequences = try readSequences()
        var soupTables: [(name: String, table: String)] = []
        for (soupId, name) in registered {
            guard let table = tables["table_\(soupId)"] else {
                throw SmartStoreImportError(
                    .notASmartStore, "\(file.name): soup '\(name)' has no table TABLE_\(soupId)", table: attributes,
                    row: soupId)
            }
            soupTables.append((name, table))
        }
        rowsTotal = try soupTables.reduce(0) { try $0 + count($1.table) }
        var highestEntryId: Int64 = 0
        var highestSyncId: Int64 = 0
        for (name, table) in soupTables {
            let records = try readRecords(table)
            let sequence = sequences[table.lowercased()] ?? 0
            if name == SmartStoreDatabase.syncsSoupName {
                syncs = try Self.syncs(of: records, table: table)
                highestSyncId = max(highestSyncId, sequence, syncs.last?.id ?? 0)
                continue
            }
            guard let soupSpecs = specs[name] else {
                throw SmartStoreImportError(
                    .malformedSoup, "\(file.name): soup '\(name)' has no index specs in soup_index_map",
                    table: "soup_index_map")
            }
            do {
                try SoupStore.validateImported(soup: name, indexSpecs: soupSpecs)
            } catch {
                throw SmartStoreImportError(
                    .malformedSoup, "\(file.name): \(error.message)", table: "soup_index_map", cause: error)
            }
            soups.append(SmartStoreSoup(name: name, indexSpecs: soupSpecs, records: records))
            highestEntryId = max(highestEntryId, sequence, records.last?.entryId ?? 0)
            highestSyncId = max(highestSyncId, Self.highestSyncId(namedBy: records))
        }
        progress?(SmartStoreImportProgress(phase: .reading, done: rowsRead, total: rowsTotal))
        nextEntryId = try Self.successor(of: highestEntryId, what: "_soupEntryId")
        nextSyncId = try Self.successor(of: highestSyncId, what: "sync id")
    }

    /// An alter-soup SmartStore has not finished leaves its soup's tables half renamed.
    private func refuseUnfinishedAlterations() throws {
        guard let table = tables["long_operations_status"], try count(table) > 0 else { return }
        throw SmartStoreImportError(
            .unsupported,
            "\(file.name): an alter-soup is unfinished (a row of long_operations_status); open the store once "
                + "with the app, which finishes it, then import it", table: table)
    }

    /// `soup_attrs` (or `soup_names`): each soup's id and name, in id order.
    private func readSoupAttributes(_ table: String) throws -> [(Int64, String)] {
        var soups: [(Int64, String)] = []
        try file.forEachRow("SELECT * FROM \"\(table)\" ORDER BY id", table: table) { row in
            var id: Int64?
            var name: String?
            var external = false
            for column in 0..<row.columnCount {
                switch row.name(column) {
                case "id": id = row.integer(column)
                case "soupName": name = row.text(column)
                case "externalStorage": external = (row.integer(column) ?? 0) != 0
                default: break
                }
            }
            guard let id, let name, !name.isEmpty else {
                throw SmartStoreImportError(
                    .malformedSoup, "\(file.name): a row of \(table) has no id or no soupName", table: table, row: id)
            }
            guard !external else {
                throw SmartStoreImportError(
                    .unsupported,
                    "\(file.name): soup '\(name)' keeps its records in external storage (files beside the database, "
                        + "Mobile SDK 6 to 10), which this import does not read; migrate it out of external storage "
                        + "with Mobile SDK first", table: table, row: id)
            }
            soups.append((id, name))
        }
        return soups
    }

    /// `soup_index_map`: each soup's index specs in the order they were declared.
    private func readIndexMap() throws -> [String: [IndexSpec]] {
        var specs: [String: [IndexSpec]] = [:]
        let sql = "SELECT rowid, soupName, path, columnType FROM soup_index_map ORDER BY rowid"
        try file.forEachRow(sql, table: "soup_index_map") { row in
            let rowId = row.integer(0)
            guard let soup = row.text(1), let path = row.text(2), let typeName = row.text(3) else {
                throw SmartStoreImportError(
                    .malformedSoup, "\(file.name): a row of soup_index_map has no soupName, path or columnType",
                    table: "soup_index_map", row: rowId)
            }
            // SmartStore's types; `hashed` is this library's own and never in a SmartStore file.
            guard let type = IndexType(rawValue: typeName), type != .hashed else {
                throw SmartStoreImportError(
                    .malformedSoup,
                    "\(file.name): soup '\(soup)' indexes '\(path)' with unknown type '\(typeName)'",
                    table: "soup_index_map", row: rowId)
            }
            specs[soup, default: []].append(IndexSpec(path: path, type: type))
        }
        return specs
    }

    /// `sqlite_sequence`: the highest id each AUTOINCREMENT table handed out, by lower-cased name.
    private func readSequences() throws -> [String: Int64] {
        guard tables["sqlite_sequence"] != nil else { return [:] }
        var sequences: [String: Int64] = [:]
        try file.forEachRow("SELECT name, seq FROM sqlite_sequence", table: "sqlite_sequence") { row in
            if let name = row.text(0), let seq = row.integer(1) { sequences[name.lowercased()] = seq }
        }
        return sequences
    }

    private func count(_ table: String) throws -> Int64 {
        var count: Int64 = 0
        try file.forEachRow("SELECT count(*) FROM \"\(table)\"", table: table) { row in count = row.integer(0) ?? 0 }
        return count
    }

    static func successor(of id: Int64, what: String) throws -> Int64 {
        guard id < Int64.max else {
            throw SmartStoreImportError(.malformedRecord, "no \(what) is left after \(id)")
        }
        return id + 1
    }
}
