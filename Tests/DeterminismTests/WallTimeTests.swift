import Determinism
import Testing

@Suite struct WallTimeTests {
    @Test func formatsInSalesforceWireFormat() {
        #expect(WallTime(millisecondsSinceEpoch: 0).salesforceFormat == "1970-01-01T00:00:00.000+0000")
        #expect(
            WallTime(millisecondsSinceEpoch: 1_714_566_600_123).salesforceFormat == "2024-05-01T12:30:00.123+0000")
        #expect(WallTime(millisecondsSinceEpoch: -1).salesforceFormat == "1969-12-31T23:59:59.999+0000")
        // Years below 1000 keep four digits; years before 1 BCE a minus sign, as `%04lld` wrote them.
        #expect(
            WallTime(millisecondsSinceEpoch: -62_135_596_800_000).salesforceFormat == "0001-01-01T00:00:00.000+0000")
        #expect(
            WallTime(millisecondsSinceEpoch: -62_198_755_200_000).salesforceFormat == "-001-01-01T00:00:00.000+0000")
        #expect(
            WallTime(millisecondsSinceEpoch: 253_402_300_799_999).salesforceFormat == "9999-12-31T23:59:59.999+0000")
    }

    @Test(arguments: [
        ("2024-05-01T12:30:00.123+0000", Int64(1_714_566_600_123)),
        ("2024-05-01T12:30:00Z", 1_714_566_600_000),
        ("2024-05-01T14:30:00.000+02:00", 1_714_566_600_000),
        ("2024-02-29T00:00:00.5-0100", 1_709_168_400_500),
        ("1970-01-01T00:00:00.000Z", 0),
    ])
    func parsesISO8601(text: String, milliseconds: Int64) {
        #expect(WallTime(iso8601: text)?.millisecondsSinceEpoch == milliseconds)
    }

    @Test(arguments: ["", "2024-05-01", "2024-13-01T00:00:00Z", "2024-05-01T12:30:00.Z", "2024-05-01T12:30:00+1"])
    func rejectsMalformedDateTimes(text: String) {
        #expect(WallTime(iso8601: text) == nil)
    }

    @Test func roundTripsThroughWireFormatAcrossCenturies() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let time = WallTime(
                millisecondsSinceEpoch: Int64.random(in: -2_000_000_000_000...9_000_000_000_000, using: &generator))
            #expect(WallTime(iso8601: time.salesforceFormat) == time)
        }
    }
}

@Suite struct DeterministicSourcesTests {
    @Test func splitMix64RepeatsItsSequenceForASeed() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        let a = (0..<10).map { _ in first.next() }
        let b = (0..<10).map { _ in second.next() }
        #expect(a == b)
        #expect(Set(a).count == 10)
    }

    @Test func manualWallClockMovesOnlyWhenTold() {
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1000))
        #expect(clock.now().millisecondsSinceEpoch == 1000)
        clock.advance(by: .milliseconds(250))
        #expect(clock.now().millisecondsSinceEpoch == 1250)
    }

    @Test func tickingManualWallClockGivesDistinctReadings() {
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 0), tick: .milliseconds(1))
        #expect((0..<3).map { _ in clock.now().millisecondsSinceEpoch } == [0, 1, 2])
    }

    @Test func immediateClockRecordsSleepsWithoutWaiting() async throws {
        let clock = ImmediateClock()
        try await clock.sleep(for: .seconds(30))
        try await clock.sleep(for: .milliseconds(5))
        #expect(clock.sleeps == [.seconds(30), .milliseconds(5)])
        #expect(clock.now.offset == .milliseconds(30_005))
    }

    @Test func incrementingIDsCountUp() {
        let ids = IncrementingIDGenerator(first: 5)
        #expect([ids.next(), ids.next(), ids.next()] == [5, 6, 7])
    }
}
