import ArgumentParser
import BenchmarkSupport

extension JournalBenchmarks {
    struct Soup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Soup inserts, lookups and range pages, beside SQLite (synchronous FULL) and SQLCipher.",
            discussion: """
                The same seeded records (--shape, 4 indexes) and probes on every store: SmartStore's layout in \
                SQLite and in SQLCipher (a child process, sqlcipher-baseline), then the soups under each \
                configuration. Prints the goals' ratios from this one run.
                """)

        @Option(help: "Records to insert.")
        var records = 100_000

        @Option(help: "Records per durable transaction.")
        var batchSize = 2000

        @Option(help: "Exact lookups by Id after the insert.")
        var lookups = 10_000

        @Option(help: "Range pages of 100 records on AnnualRevenue after the lookups.")
        var rangePages = 1000

        @OptionGroup var recordShape: ShapeOptions
        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["records": records, "batch-size": batchSize])
            try OptionCheck.atLeast(0, ["lookups": lookups, "range-pages": rangePages])
        }

        func run() async throws {
            let benchmark = SoupBenchmark(
                workload: SoupWorkload(
                    recordCount: records, batchSize: batchSize, lookupCount: lookups, rangePageCount: rangePages,
                    shape: recordShape.shape),
                configurations: stores.selected, report: output.report)
            try output.report.finish("soup", try benchmark.run())
        }
    }
}
