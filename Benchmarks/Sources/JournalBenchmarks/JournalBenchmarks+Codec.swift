import ArgumentParser
import BenchmarkSupport

extension JournalBenchmarks {
    struct Codec: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compressed size and speed of candidate codecs on stored record values and page entries.",
            discussion: """
                Serializes --records records of --shape as the store holds them (compact JSON, one value per \
                record) and measures raw deflate (levels 1 and 6) and zstd (levels 1 and 3), each without and \
                with a dictionary trained from other records: each record compressed alone, then pages of \
                --page-records compressed together. Every value must round-trip. Ratios do not depend on the \
                build; throughput is only meaningful in a release build.
                """)

        @Option(help: "Records to serialize and compress.")
        var records = 100_000

        @Option(help: "Records per page for the page measures (a sync-down page entry holds up to 2,000).")
        var pageRecords = SyncDownBenchmark.pageSize

        @Option(help: "Other records the dictionaries are trained from.")
        var dictionarySample = 2000

        @OptionGroup var recordShape: ShapeOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["records": records, "page-records": pageRecords])
            // ZDICT_trainFromBuffer needs a few hundred samples to find anything worth keeping.
            try OptionCheck.atLeast(100, ["dictionary-sample": dictionarySample])
        }

        func run() throws {
            let benchmark = CodecBenchmark(
                recordCount: records, pageRecordCount: pageRecords, sampleRecordCount: dictionarySample,
                shape: recordShape.shape, report: output.report)
            try output.report.finish("codec", try benchmark.run())
        }
    }
}
