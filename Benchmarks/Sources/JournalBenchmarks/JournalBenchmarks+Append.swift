import ArgumentParser

extension JournalBenchmarks {
    struct Append: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Journal appends against raw LMDB puts of the same bytes.",
            discussion: """
                One projection (KindCountsProjection), fsync on commit. The first journal run (unlimited history) \
                yields the raw run's bytes; then each configuration appends again.
                """)

        @Option(help: "Entries to append.")
        var entries = 1_000_000

        @Option(help: "Bytes of each entry's payload.")
        var payloadBytes = 1024

        @Option(help: "Entries per transaction.")
        var batchSize = 2000

        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["entries": entries, "payload-bytes": payloadBytes, "batch-size": batchSize])
        }

        func run() async throws {
            let benchmark = AppendBenchmark(
                entryCount: entries, payloadBytes: payloadBytes, batchSize: batchSize,
                configurations: stores.selected, report: output.report)
            try output.report.finish("append", try benchmark.run())
        }
    }
}
