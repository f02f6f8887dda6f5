import ArgumentParser
import BenchmarkSupport

extension JournalBenchmarks {
    struct SmartSQL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "smart-sql",
            abstract: "Smart SQL over the soups beside the same query on SmartStore's SQLite layout.",
            discussion: """
                Two soups (accounts, contacts) of --records records each, of --shape (lorem: its own records, \
                as every figure before issue 48; org: OrgRecords' Accounts and Contacts); the five queries of \
                issue 26 (indexed equality, ordered range, group by, join, scan), their arguments drawn from \
                the records, each checked to return SQLite's rows first, then timed on the default store \
                plaintext and encrypted.
                """)

        @Option(help: "Records in each soup.")
        var records = 100_000

        @OptionGroup var recordShape: ShapeOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["records": records])
        }

        func run() async throws {
            let benchmark = SmartSQLBenchmark(recordCount: records, shape: recordShape.shape, report: output.report)
            try output.report.finish("smart-sql", try benchmark.run())
        }
    }
}
