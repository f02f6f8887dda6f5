import ArgumentParser

extension JournalBenchmarks {
    struct StateAsOfSoups: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "state-as-of-soups",
            abstract: "journal-replay state --as-of on a store with every real projection, then its fold.",
            discussion: """
                Records created 100 per entry, then one local edit per entry. History kept \
                (RetentionPolicy.unlimited): under the default retention the early sequences are compacted away.
                """)

        @Option(help: "Entries in the journal.")
        var entries = 1_000_000

        @Option(help: "Records created before the edits.")
        var records = 10_000

        @Option(help: "Random sequences asked about after the first call.")
        var queries = 20

        @Flag(help: "Ask before any verify: only the checkpoints the store wrote as it grew exist.")
        var cold = false

        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(100, ["records": records])
            try OptionCheck.atLeast(1, ["entries": entries, "queries": queries])
        }

        func run() async throws {
            let benchmark = StateAsOfSoupsBenchmark(
                entryCount: entries, recordCount: records, queryCount: queries, verifiesFirst: !cold,
                report: output.report)
            try output.report.finish("state-as-of-soups", try benchmark.run())
        }
    }
}
