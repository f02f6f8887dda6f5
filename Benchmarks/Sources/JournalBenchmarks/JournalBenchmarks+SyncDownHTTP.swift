import ArgumentParser

extension JournalBenchmarks {
    struct SyncDownHTTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-down-http",
            abstract: "A SOQL sync down from the simulator: in-process transport, then loopback HTTP.")

        @Option(help: "Simulator Accounts (~1 KB) to sync down.")
        var records = 100_000

        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["records": records])
        }

        func run() async throws {
            let benchmark = SyncDownHTTPBenchmark(
                recordCount: records, configurations: stores.selected, report: output.report)
            try output.report.finish("sync-down-http", try await benchmark.run())
        }
    }
}
