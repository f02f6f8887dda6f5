import ArgumentParser
import EventJournal
import Foundation

extension JournalBenchmarks {
    struct Fold: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The fold (rebuild in place) of record-edit entries, reporting the entries actually folded.",
            discussion: """
                Records created 100 per entry, then one local edit per entry. Only unlimited history keeps every \
                entry: under the default retention the rebuild restores the horizon's checkpoint and folds what \
                compaction left, and the figures count those entries. The fold goal is read on unlimited.
                """)

        @Option(help: "Entries in the journal.")
        var entries = 1_000_000

        @Option(help: "Records created before the edits.")
        var records = 10_000

        @Flag(help: "Records of ~1 KB with four indexes (the soup benchmark's) instead of small ones with two.")
        var wide = false

        @Option(help: "Keep the built stores in this directory (one folder per configuration) and reuse them.")
        var store: String?

        @Option(help: "Entries folded per projections transaction (JournalOptions.rebuildBatchSize).")
        var batchSize = JournalOptions().rebuildBatchSize

        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(100, ["records": records])
            try OptionCheck.atLeast(1, ["entries": entries, "batch-size": batchSize])
            // A kept store would be reopened with a new random key, which cannot open it.
            if store != nil, stores.selected.contains(.defaultEncrypted) {
                throw ValidationError("--store keeps plaintext stores only: add --configuration default or unlimited")
            }
        }

        func run() async throws {
            let benchmark = FoldBenchmark(
                entryCount: entries, recordCount: records, storeDirectory: store.map { URL(fileURLWithPath: $0) },
                wideRecords: wide, batchSize: batchSize, configurations: stores.selected, report: output.report)
            try output.report.finish("fold", try benchmark.run())
        }
    }
}
