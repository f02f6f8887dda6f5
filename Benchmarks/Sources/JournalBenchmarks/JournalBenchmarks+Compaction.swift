import ArgumentParser
import BenchmarkSupport

extension JournalBenchmarks {
    struct Compaction: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bounded disk: a full sync, then reSyncs of 100 changed records on a manual clock.",
            discussion: """
                The store's size after the full sync and every --report-every reSyncs, the same soup in SQLite, \
                and what the compacting reSyncs cost beyond the median, per entry removed.
                """)

        @Option(help: "Records of the full sync.")
        var records = 10_000

        @Option(name: .customLong("resyncs"), help: "reSyncs after the full sync.")
        var reSyncs = 1000

        @Option(help: "Minutes of the manual clock between two reSyncs.")
        var minutesBetween = 5

        @Option(help: "Print the store's size every this many reSyncs.")
        var reportEvery = 100

        @OptionGroup var recordShape: ShapeOptions
        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(1, ["records": records, "report-every": reportEvery])
            try OptionCheck.atLeast(0, ["resyncs": reSyncs, "minutes-between": minutesBetween])
        }

        func run() async throws {
            let benchmark = CompactionBenchmark(
                soupCount: records, reSyncCount: reSyncs, minutesBetween: minutesBetween, reportEvery: reportEvery,
                shape: recordShape.shape, configurations: stores.selected, report: output.report)
            try output.report.finish("compaction", try await benchmark.run())
        }
    }
}
