import ArgumentParser

extension JournalBenchmarks {
    struct Floor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What LMDB alone costs for the soups' layouts: the floor under ingest and reSync.",
            discussion: """
                Every byte prepared before the clock starts, durable commits; then SQLite's reSync (synchronous \
                NORMAL and FULL). No journal: retention and encryption do not apply.
                """)

        @Option(help: "Records the ingest writes.")
        var records = 100_000

        @Option(help: "The small store of the reSync.")
        var smallSoup = 10_000

        @Option(help: "The large store of the reSync.")
        var largeSoup = 1_000_000

        @Option(help: "reSyncs per store; their median is reported.")
        var repeats = 21

        @Option(help: "Records per journal entry, one entry per transaction.")
        var recordsPerEntry = 2000

        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(
                1,
                [
                    "records": records, "small-soup": smallSoup, "large-soup": largeSoup, "repeats": repeats,
                    "records-per-entry": recordsPerEntry,
                ])
        }

        func run() async throws {
            let benchmark = LayoutFloorBenchmark(
                recordCount: records, smallCount: smallSoup, largeCount: largeSoup, repeatCount: repeats,
                pageSize: recordsPerEntry, report: output.report)
            try output.report.finish("floor", try benchmark.run())
        }
    }
}
