import ArgumentParser
import EventJournal
import Testing
import ToolSupport

/// Issue 29: every retention value has a bounded answer; none traps converting to an integer.
@Suite struct RetentionOptionsTests {
    @Test(arguments: ["1e15", "inf", "nan", "1e308", "-1", "0", "36501"])
    func outOfRangeRetentionDaysAreRefused(value: String) {
        #expect(throws: (any Error).self) { try RetentionOptions.parse(["--retain-days", value]) }
    }

    @Test(arguments: ["1e13", "inf", "nan", "-0.5", "1048577"])
    func outOfRangeRetentionMebibytesAreRefused(value: String) {
        #expect(throws: (any Error).self) { try RetentionOptions.parse(["--retain-mib", value]) }
    }

    @Test func theLargestLimitsMakeAPolicy() throws {
        let options = try RetentionOptions.parse(["--retain-days", "36500", "--retain-mib", "1048576"])
        #expect(options.policy.journalBytes == 1 << 40)
    }
}
