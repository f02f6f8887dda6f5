// journal-benchmarks append|state-as-of|state-as-of-soups|soup|floor|sync-down|sync-down-http|sync-up-http|recovery|fold|compaction [COUNT] [COUNT]
// soup and sync-down take --encrypted (last) to open their stores with a key.
// (sync-down: [INGEST_COUNT, 0 skips it] [LARGE_SOUP, 0 skips reSync] [RESYNC_REPEATS] [INGEST_PAGE_SIZE] [PAGES_PER_COMMIT]; floor: [INGEST_COUNT] [LARGE_SOUP] [RECORDS_PER_ENTRY])
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
/// The numeric argument at `position` (1 = the first after the benchmark's name), if given.
func count(_ position: Int) -> Int? {
    arguments.count > position ? Int(arguments[position]) : nil
}

/// Runs a benchmark; a failure prints one line and exits 1.
func runOrExit(_ body: () async throws -> Void) async {
    do {
        try await body()
    } catch {
        FileHandle.standardError.write(Data("journal-benchmarks: \(error)\n".utf8))
        exit(1)
    }
}

switch arguments.first {
case "append":
    var benchmark = AppendBenchmark()
    if let count = count(1) { benchmark.entryCount = count }
    await runOrExit { try benchmark.run() }
case "state-as-of":
    var benchmark = StateAsOfBenchmark()
    if let count = count(1) { benchmark.entryCount = count }
    await runOrExit { try benchmark.run() }
case "state-as-of-soups":
    var benchmark = StateAsOfSoupsBenchmark()
    if let count = count(1) { benchmark.entryCount = count }
    if let count = count(2) { benchmark.recordCount = count }
    benchmark.verifiesFirst = !arguments.contains("--cold")
    await runOrExit { try benchmark.run() }
case "soup":
    var benchmark = SoupBenchmark()
    if let count = count(1) { benchmark.recordCount = count }
    await runOrExit { try benchmark.run() }
case "sync-down":
    var benchmark = SyncDownBenchmark()
    if let count = count(1) { benchmark.recordCount = count }
    if let count = count(2) { benchmark.largeSoupCount = count }
    if let count = count(3) { benchmark.reSyncRepeatCount = count }
    if let count = count(4) { benchmark.ingestPageSize = count }
    if let count = count(5) { benchmark.ingestPagesPerCommit = count }
    await runOrExit { try await benchmark.run() }
case "floor":
    var benchmark = LayoutFloorBenchmark()
    if let count = count(1) { benchmark.recordCount = count }
    if let count = count(2) { benchmark.largeCount = count }
    if let count = count(3) { benchmark.pageSize = count }
    await runOrExit { try benchmark.run() }
case "sync-down-http":
    var benchmark = SyncDownHTTPBenchmark()
    if let count = count(1) { benchmark.recordCount = count }
    await runOrExit { try await benchmark.run() }
case "fold":
    var benchmark = FoldBenchmark()
    if let count = count(1) { benchmark.entryCount = count }
    if let index = arguments.firstIndex(of: "--store"), index + 1 < arguments.count {
        benchmark.storeDirectory = URL(fileURLWithPath: arguments[index + 1])
    }
    benchmark.wideRecords = arguments.contains("--wide")
    await runOrExit { try benchmark.run() }
case "compaction":
    await runOrExit {
        try await CompactionBenchmark(
            soupCount: count(1) ?? 10_000, reSyncCount: count(2) ?? 1_000, minutesBetween: count(3) ?? 5
        ).run()
    }
case "recovery":
    var benchmark = RecoveryBenchmark()
    if let count = count(1) { benchmark.recordCount = count }
    await runOrExit { try await benchmark.run() }
case "recovery-child" where arguments.count == 4:
    await runOrExit {
        try RecoveryBenchmark.child(
            store: arguments[1], recordCount: count(2) ?? 10_000, interval: UInt64(count(3) ?? 50_000))
    }
case "smart-sql":
    await runOrExit { _ = try SmartSQLBenchmark(recordCount: count(1) ?? 100_000).run() }
case "sync-up-http":
    var benchmark = SyncUpHTTPBenchmark()
    if let count = count(1) { benchmark.recordCount = count }
    await runOrExit { try await benchmark.run() }
default:
    FileHandle.standardError.write(
        Data(
            "usage: journal-benchmarks append|state-as-of|state-as-of-soups|soup|floor|sync-down|sync-down-http|sync-up-http|recovery|fold [COUNT]\n"
                .utf8))
    exit(2)
}
