import SyncCore
import Testing

@testable import Soups

@Suite struct SavedRecordsHandoffTests {
    private func batch(sequence: UInt64) -> SavedRecordsHandoff.Batch {
        let record: JSONValue = ["_soupEntryId": 1, "Name": "Acme"]
        let value: JSONValue = ["soup": "accounts", "records": [record]]
        return SavedRecordsHandoff.Batch(
            sequence: sequence, payload: value.serialized(), value: value, recordBytes: [record.serialized()])
    }

    @Test func aBatchIsTakenOnlyByItsOwnEntryAndOnlyOnce() {
        let handoff = SavedRecordsHandoff()
        let offered = batch(sequence: 7)
        handoff.offer(offered)
        #expect(handoff.take(sequence: 7, payload: offered.payload)?.value == offered.value)
        #expect(handoff.take(sequence: 7, payload: offered.payload) == nil)
    }

    @Test func aBatchForAnotherEntryIsDroppedSoAFailedAppendNeverLeaksIntoTheNext() {
        let handoff = SavedRecordsHandoff()
        let offered = batch(sequence: 7)
        handoff.offer(offered)
        #expect(handoff.take(sequence: 8, payload: offered.payload) == nil)
        handoff.offer(offered)
        #expect(handoff.take(sequence: 7, payload: Array(offered.payload.dropLast())) == nil)
        #expect(handoff.take(sequence: 7, payload: offered.payload) == nil)
    }
}
