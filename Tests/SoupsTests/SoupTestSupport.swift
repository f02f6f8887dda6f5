import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import LosslessJSON
import Soups
import SyncTesting
import Testing

/// A soup store on a fresh journal in a temporary directory, with a manual clock.
struct SoupFixture {
    let directory: TemporaryDirectory
    let clock: ManualWallClock
    let journal: Journal
    let store: SoupStore

    /// - Parameters:
    ///   - tick: how far the clock moves at each reading.
    ///   - flushesOnCommit: `false` for long runs, whose durability is not what they test.
    ///   - encryption: the store's key, or `nil` for a plaintext store.
    ///   - rebuildBatchSize: entries per transaction of a rebuild.
    init(
        _ label: String = "soups", tick: Duration = .milliseconds(1), flushesOnCommit: Bool = true,
        encryption: StoreKey? = nil, rebuildBatchSize: Int = JournalOptions().rebuildBatchSize
    ) throws {
        directory = try TemporaryDirectory(label)
        clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_700_000_000_000), tick: tick)
        var options = JournalOptions()
        options.environment.flushesOnCommit = flushesOnCommit
        options.encryption = encryption
        options.rebuildBatchSize = rebuildBatchSize
        journal = try Journal(
            directory: directory.appending("store"), projections: [SoupProjection()], clock: clock, options: options,
            logger: .discarding)
        store = SoupStore(journal: journal, clock: clock, idGenerator: IncrementingIDGenerator())
    }

    /// The same store opened again (after `fixture`'s journal was closed), with `encryption`.
    static func reopen(_ fixture: SoupFixture, encryption: StoreKey?) throws -> SoupFixture {
        try SoupFixture(directory: fixture.directory, clock: fixture.clock, encryption: encryption)
    }

    private init(directory: TemporaryDirectory, clock: ManualWallClock, encryption: StoreKey?) throws {
        self.directory = directory
        self.clock = clock
        var options = JournalOptions()
        options.encryption = encryption
        journal = try Journal(
            directory: directory.appending("store"), projections: [SoupProjection()], clock: clock, options: options,
            logger: .discarding)
        store = SoupStore(journal: journal, clock: clock, idGenerator: IncrementingIDGenerator())
    }

    /// A fixture holding one soup with `records`.
    static func withSoup(_ soup: String, _ specs: [IndexSpec], _ records: [JSONValue]) throws -> SoupFixture {
        let fixture = try SoupFixture()
        try fixture.store.registerSoup(soup, indexSpecs: specs)
        try fixture.store.create(soup, records)
        return fixture
    }

    /// Every key and value of the soup projection's databases.
    func projectionState() throws -> [String: [[UInt8]: [UInt8]]] {
        try journal.read { reader in
            var state: [String: [[UInt8]: [UInt8]]] = [:]
            for name in SoupProjection().databaseNames {
                var entries: [[UInt8]: [UInt8]] = [:]
                try reader.transaction.withCursor(reader.database(named: name)) { cursor in
                    try cursor.forEach { key, value in
                        entries[key] = value
                        return true
                    }
                }
                state[name] = entries
            }
            return state
        }
    }

    /// Asserts-friendly check that a rebuild from the journal gives the same state and that
    /// `verify` finds no divergence.
    func rebuildMatches() throws -> Bool {
        let before = try projectionState()
        let report = try journal.verify(scratchDirectory: directory.appending("scratch"))
        try journal.rebuild()
        let after = try projectionState()
        return report.isConsistent && before == after
    }

    func remove() {
        directory.remove()
    }
}

extension JSONValue {
    var entryId: Int64? {
        self["_soupEntryId"]?.number?.int64Value
    }
}

func names(_ records: [JSONValue]) -> [String] {
    records.map { $0["Name"]?.string ?? "-" }
}

/// Expects `body` to throw a ``SoupError`` with `code`.
func expectError<R>(
    _ code: SoupError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) {
    #expect(sourceLocation: sourceLocation) {
        _ = try body()
    } throws: { error in
        (error as? SoupError)?.code == code
    }
}
