import SyncCore
import Testing

@testable import Soups

@Suite struct ParsedPayloadHandoffTests {
    private let value: JSONValue = [["Id": "001A", "Name": "Acme"], ["Id": "001B", "Name": "Beta"]]

    @Test func anOfferIsTakenOnlyByItsOwnEntryAndOnlyOnce() {
        let handoff = ParsedPayloadHandoff()
        let payload = value.serialized()
        handoff.offer(ParsedPayloadHandoff.Offer(sequence: 7, payload: payload, value: value))
        #expect(handoff.take(sequence: 7, payload: payload) == value)
        #expect(handoff.take(sequence: 7, payload: payload) == nil)
    }

    @Test func anOfferForOtherBytesOrAnotherEntryIsDropped() {
        let handoff = ParsedPayloadHandoff()
        let payload = value.serialized()
        handoff.offer(ParsedPayloadHandoff.Offer(sequence: 7, payload: payload, value: value))
        #expect(handoff.take(sequence: 8, payload: payload) == nil)
        handoff.offer(ParsedPayloadHandoff.Offer(sequence: 7, payload: payload, value: value))
        #expect(handoff.take(sequence: 7, payload: Array(payload.dropLast())) == nil)
        #expect(handoff.take(sequence: 7, payload: payload) == nil)
    }
}
