import ArgumentParser

extension JournalBenchmarks {
    struct SyncUpHTTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-up-http",
            abstract: "A sync up of local creates through sObject Collections: in-process, then loopback HTTP.")

        @Option(help: "Records created locally, then synced up.")
        var records = 10_000

        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["records": records])
        }

        func run() async throws {
            let benchmark = SyncUpHTTPBenchmark(
                recordCount: records, configurations: stores.selected, report: output.report)
            try output.report.finish("sync-up-http", try await benchmark.run())
        }
    }
}
