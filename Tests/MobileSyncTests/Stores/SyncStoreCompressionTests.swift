import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Synchronization
import Testing

/// Opening a store compresses the records it still holds as JSON, with progress, and a
/// read-only open leaves them (decision 0033).
@Suite struct SyncStoreCompressionTests {
    private static let recompressed = JournalEntry.Kind(rawValue: "soup.recompressed")

    private static func account(_ number: Int) -> JSONValue {
        [
            "Id": .string("001\(String(format: "%09d", number))AAA"),
            "Name": .string("Account \(number) of the \(["Blue", "Red", "Green"][number % 3]) group"),
            "Industry": .string(["Energy", "Retail", "Finance", "Media"][number % 4]),
            "attributes": ["type": "Account"],
        ]
    }

    /// The store in `directory`, opened, and what opening reported (all of it is reported
    /// before the initializer returns).
    private static func open(_ directory: TemporaryDirectory, readOnly: Bool = false) throws -> (
        SyncStore, [OpeningProgress]
    ) {
        let reports = Mutex<[OpeningProgress]>([])
        var options = JournalOptions()
        options.isReadOnly = readOnly
        options.openingProgress = { progress in reports.withLock { $0.append(progress) } }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(tick: .milliseconds(1)),
            idGenerator: IncrementingIDGenerator(), options: options, logger: .discarding)
        return (store, reports.withLock { $0 })
    }

    @Test func openingAStoreLeftPartWayCompressesTheRestWithProgress() throws {
        let directory = try TemporaryDirectory("store-compression")
        defer { directory.remove() }
        let count = SoupStore.recompressionEntryCountMax + 500
        let (store, _) = try Self.open(directory)
        try store.soups.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        try store.soups.create("accounts", (0..<count).map(Self.account))
        let before = try store.soups.query(.all("accounts", pageSize: count))
        // The write that crossed the threshold compressed one batch; 500 records are left.
        #expect(try store.journal.count(of: Self.recompressed) == 1)
        try store.journal.close()

        let (reader, readReports) = try Self.open(directory, readOnly: true)
        #expect(readReports.filter { $0.phase == .compressingRecords }.isEmpty)
        #expect(try reader.journal.count(of: Self.recompressed) == 1)
        try reader.journal.close()

        let (reopened, reports) = try Self.open(directory)
        let compressing = reports.filter { $0.phase == .compressingRecords }
        #expect(compressing == [OpeningProgress(phase: .compressingRecords, folded: 500, total: 500)])
        #expect(try reopened.journal.count(of: Self.recompressed) == 2)
        #expect(try reopened.soups.query(.all("accounts", pageSize: count)) == before)
        var more: [Int] = []
        try reopened.soups.compressRecords { compressed, _ in more.append(compressed) }
        #expect(more.isEmpty)
    }
}
