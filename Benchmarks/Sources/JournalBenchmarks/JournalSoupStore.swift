import BenchmarkSupport
import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import LosslessJSON
import Soups
import SyncTesting

/// The soup workload's store on the journal: a `SoupStore` with the benchmark soup `accounts`
/// and its four indexes, durable commits, opened with one ``StoreConfiguration``.
struct JournalSoupStore: SoupWorkloadStore {
    let store: SoupStore
    let journal: Journal
    let directory: URL

    init(directory: URL, configuration: StoreConfiguration) throws {
        var options = JournalOptions()
        options.environment.mapSizeBytes = 8 << 30
        options = try configuration.applied(to: options)
        let clock = ManualWallClock(tick: .milliseconds(1))
        let journal = try Journal(
            directory: directory, projections: [SoupProjection()], clock: clock, options: options,
            logger: Logger.discarding)
        self.directory = directory
        self.journal = journal
        store = SoupStore(journal: journal, clock: clock, idGenerator: IncrementingIDGenerator())
        try store.registerSoup("accounts", indexSpecs: Self.indexSpecs)
    }

    /// The benchmark records' four indexes (``BenchmarkRecords/indexedPaths``) as index specs.
    static var indexSpecs: [IndexSpec] {
        BenchmarkRecords.indexedPaths.compactMap { path, type in
            IndexType(rawValue: type).map { IndexSpec(path: path, type: $0) }
        }
    }

    func insert(_ records: [JSONValue]) throws {
        _ = try store.create("accounts", records)
    }

    func lookup(id: String) throws -> JSONValue? {
        try store.query(.exact("accounts", path: "Id", value: .string(id), pageSize: 1)).first
    }

    func rangePage(from low: Int64) throws -> [JSONValue] {
        try store.query(
            .range(
                "accounts", path: "AnnualRevenue", from: .number(JSONNumber(low)), to: nil, orderPath: "AnnualRevenue",
                pageSize: SmartStoreLayout.rangePageSize))
    }

    /// The journal, the projections and the checkpoints: every file of the store.
    func storeBytes() throws -> Int {
        try DirectorySize.bytes(under: directory)
    }

    /// Where the store's bytes are: each environment's file (`journal`, `projections`), the
    /// checkpoint copies and the anchor (`checkpoints`), and the pages of every named database
    /// of both environments (`journal/NAME`, `projections/NAME`); free pages are the rest of a
    /// file.
    func storeParts() throws -> [String: Int] {
        let statistics = try journal.statistics()
        var parts = [
            "journal": statistics.journalFileBytes, "projections": statistics.projectionFileBytes,
            "checkpoints": statistics.checkpointBytes,
        ]
        for (label, environment) in [
            ("journal", journal.journalEnvironment), ("projections", journal.projectionEnvironment),
        ] {
            let names = try environment.read { try $0.databaseNames() }
            let databases = try names.map { try environment.database(named: $0) }
            let pageBytes = try environment.read { transaction in
                try databases.map { try transaction.statistics($0).pageBytes }
            }
            for (name, bytes) in zip(names, pageBytes) { parts["\(label)/\(name)"] = bytes }
        }
        return parts
    }
}
