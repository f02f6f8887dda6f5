import ArgumentParser

extension JournalBenchmarks {
    struct StateAsOf: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "state-as-of",
            abstract: "journal-replay state --as-of on a journal with one small projection.",
            discussion: "History kept (RetentionPolicy.unlimited): every sequence must stay answerable.")

        @Option(help: "Entries in the journal.")
        var entries = 1_000_000

        @Option(help: "Random sequences asked about after the first call.")
        var queries = 30

        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["entries": entries, "queries": queries])
        }

        func run() async throws {
            let benchmark = StateAsOfBenchmark(entryCount: entries, queryCount: queries, report: output.report)
            try output.report.finish("state-as-of", try benchmark.run())
        }
    }
}
