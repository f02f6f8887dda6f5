import LosslessJSON
import Testing

@testable import Soups

@Suite struct EntryHandoffTests {
    private let value: JSONValue = ["soup": "accounts", "records": [["_soupEntryId": 1, "Name": "Acme"]]]

    @Test func anOfferIsTakenOnlyByItsOwnEntryAndOnlyOnce() {
        let handoff = EntryHandoff<JSONValue>()
        let payload = value.serialized()
        handoff.offer(sequence: 7, payload: payload, value: value)
        #expect(handoff.take(sequence: 7, payload: payload) == value)
        #expect(handoff.take(sequence: 7, payload: payload) == nil)
    }

    @Test func anOfferForAnotherEntryIsDroppedSoAFailedAppendNeverLeaksIntoTheNext() {
        let handoff = EntryHandoff<JSONValue>()
        let payload = value.serialized()
        handoff.offer(sequence: 7, payload: payload, value: value)
        #expect(handoff.take(sequence: 8, payload: payload) == nil)
        handoff.offer(sequence: 7, payload: payload, value: value)
        #expect(handoff.take(sequence: 7, payload: Array(payload.dropLast())) == nil)
        #expect(handoff.take(sequence: 7, payload: payload) == nil)
    }
}
