import Foundation
import Testing

/// Plain `swift test` runs the suite as CI does: the test binary bounds how many tests run at
/// once before the runner starts (Tests/TestParallelism, decision 0022).
@Suite struct TestParallelismTests {
    @Test func theTestBinaryBoundsHowManyTestsRunAtOnce() {
        let width = ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"]
        #expect(width.flatMap(Int.init).map { $0 >= 1 } == true, "the width is \(String(describing: width))")
    }
}
