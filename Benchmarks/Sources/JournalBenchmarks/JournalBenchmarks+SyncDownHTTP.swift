import ArgumentParser
import BenchmarkSupport

extension JournalBenchmarks {
    struct SyncDownHTTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-down-http",
            abstract: "A SOQL sync down from the simulator: in-process transport, then loopback HTTP.",
            discussion: """
                The simulator serves --records Accounts of --shape (lorem: ~1 KB records, the query selecting \
                their four fields; org: OrgRecords' Accounts, the query selecting every one of their fields), \
                synced down into a soup with 4 indexes under each configuration.
                """)

        @Option(help: "Simulator Accounts to sync down.")
        var records = 100_000

        @OptionGroup var recordShape: ShapeOptions
        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["records": records])
        }

        func run() async throws {
            let benchmark = SyncDownHTTPBenchmark(
                recordCount: records, shape: recordShape.shape, configurations: stores.selected,
                report: output.report)
            try output.report.finish("sync-down-http", try await benchmark.run())
        }
    }
}
