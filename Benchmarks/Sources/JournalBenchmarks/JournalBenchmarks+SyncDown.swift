import ArgumentParser
import BenchmarkSupport

extension JournalBenchmarks {
    struct SyncDown: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-down",
            abstract: "The sync-down engine without HTTP: ingest, then reSyncs on a small and a large soup.",
            discussion: """
                A custom target hands SyncManager pages of --shape records (4 indexes) from memory. The reSync \
                applies 100 changed records to soups of --small-soup and --large-soup records, then the same \
                change on SmartStore's SQLite layout (synchronous FULL).
                """)

        @Option(help: "Records the ingest syncs down (0 skips the ingest).")
        var records = 100_000

        @Option(help: "The small soup of the reSync.")
        var smallSoup = 10_000

        @Option(help: "The large soup of the reSync (0 skips the reSyncs).")
        var largeSoup = 1_000_000

        @Option(name: .customLong("resync-repeats"), help: "reSyncs per soup; their median is reported.")
        var reSyncRepeats = 21

        @Option(help: "Records per page in the ingest (Salesforce's REST pages hold at most 2,000).")
        var pageSize = SyncDownBenchmark.pageSize

        @Option(help: "Pages the ingest commits per transaction (SyncManager(pagesPerCommit:)).")
        var pagesPerCommit = 1

        @Flag(help: "Measure everything again without a sync per commit: the engine's own work.")
        var withoutFsync = false

        @OptionGroup var recordShape: ShapeOptions
        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(0, ["records": records, "large-soup": largeSoup])
            try OptionCheck.atLeast(
                1,
                [
                    "small-soup": smallSoup, "resync-repeats": reSyncRepeats, "page-size": pageSize,
                    "pages-per-commit": pagesPerCommit,
                ])
        }

        func run() async throws {
            let benchmark = SyncDownBenchmark(
                recordCount: records, smallSoupCount: smallSoup, largeSoupCount: largeSoup,
                reSyncRepeatCount: reSyncRepeats, ingestPageSize: pageSize, ingestPagesPerCommit: pagesPerCommit,
                measuresWithoutFsync: withoutFsync, shape: recordShape.shape, configurations: stores.selected,
                report: output.report)
            try output.report.finish("sync-down", try await benchmark.run())
        }
    }
}
