import LMDBStore
import Testing

/// The crash points children read from their environment: what parses, and what is refused
/// instead of passing as a run that never crashes.
@Suite struct CrashPointTests {
    @Test func aPointReadsBackFromItsDescription() throws {
        let point = CrashPoint(folderName: "journal", commit: 12, moment: .afterCommit)
        #expect(point.description == "journal:after:12")
        #expect(CrashPoint(point.description) == point)
        #expect(CrashPoint("anchor:before:1") == CrashPoint(folderName: "anchor", commit: 1, moment: .beforeCommit))
        #expect(point.environment == [CrashPoint.environmentVariable: "journal:after:12"])
    }

    @Test(arguments: ["", "journal", "journal:after", "journal:during:3", "journal:after:0", ":after:3", "j:after:x"])
    func aMalformedPointIsRefused(text: String) {
        #expect(CrashPoint(text) == nil)
        #expect(throws: CrashPlanError.self) {
            try CrashPlan.arm(fromEnvironment: [CrashPoint.environmentVariable: text])
        }
    }

    @Test func anEnvironmentWithoutTheVariableArmsNothing() throws {
        #expect(try CrashPlan.arm(fromEnvironment: ["PATH": "/usr/bin"]) == nil)
    }
}
