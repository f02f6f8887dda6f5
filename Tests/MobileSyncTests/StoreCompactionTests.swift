import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// Compaction of a whole store (soups, flags, sync states, pending uploads): every projection
/// describes the same state before and after, and after reopening.
@Suite struct StoreCompactionTests {
    /// Every projection's description of the current state, as `journal-replay state` prints it.
    private func describe(_ store: SyncStore) throws -> JSONValue {
        try store.journal.withState(asOf: UInt64.max) { state, _ in
            var projections: [String: JSONValue] = [:]
            for projection in store.journal.projections {
                projections[projection.name] = try projection.describeState(in: state, filter: [:])
            }
            return .object(projections)
        }
    }

    @Test func compactionLeavesEveryProjectionOfAStoreAsItWas() throws {
        let directory = try TemporaryDirectory("store-compaction")
        defer { directory.remove() }
        var options = JournalOptions()
        options.retention = .unlimited
        let clock = ManualWallClock(tick: .milliseconds(1))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            options: options, logger: .discarding)
        try store.soups.registerSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Name", type: .string), IndexSpec(path: "Amount", type: .integer)])
        var generator = SplitMix64(seed: 13)
        var entryIds: [Int64] = []
        for step in 0..<300 {
            let roll = generator.next() % 10
            if roll < 5 || entryIds.isEmpty {
                let record = try store.soups.createLocally(
                    "accounts", ["Name": .string("Account \(step)"), "Amount": .number(JSONNumber(Int64(step)))])
                entryIds.append(try #require(record["_soupEntryId"]?.number?.int64Value))
            } else if roll < 9 {
                let entryId = entryIds[Int(generator.next() % UInt64(entryIds.count))]
                _ = try store.soups.updateLocally(
                    "accounts", entryId: entryId, changes: ["Amount": .number(JSONNumber(Int64(step * 7)))])
            } else {
                let index = Int(generator.next() % UInt64(entryIds.count))
                _ = try store.soups.deleteLocally("accounts", entryId: entryIds.remove(at: index))
            }
        }
        let before = try describe(store)
        let report = try store.journal.compact(retention: RetentionPolicy(entryCount: 20))
        #expect(report.horizon.firstSequence > 250, "\(report)")
        #expect(try describe(store) == before)
        #expect(try store.journal.verify().isConsistent)
        try store.journal.close()

        let reopened = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(first: 1_000),
            options: options, logger: .discarding)
        #expect(try describe(reopened) == before)
        try reopened.journal.rebuild()
        #expect(try describe(reopened) == before)
    }
}
