import ArgumentParser
import EventJournal

extension JournalBenchmarks {
    struct Recovery: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Opening a store after SIGKILL and after a power loss, one interval unsynced.",
            discussion: """
                A child (recovery-child) fills the store until one checkpoint interval past its last checkpoint, \
                less one entry, and is killed; the store is then opened as after the kill, and a copy as after a \
                power loss.
                """)

        @Option(help: "Records the child creates before its edits.")
        var records = 10_000

        @Option(help: "The checkpoint interval, in entries (the default policy's).")
        var interval = Int(CheckpointPolicy().entryCountMax)

        @OptionGroup var stores: ConfigurationOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try OptionCheck.atLeast(100, ["records": records])
            try OptionCheck.atLeast(1, ["interval": interval])
        }

        func run() async throws {
            let benchmark = RecoveryBenchmark(
                recordCount: records, interval: UInt64(interval), configurations: stores.selected,
                report: output.report)
            try output.report.finish("recovery", try await benchmark.run())
        }
    }

    /// The child process of ``Recovery``: hidden, since only the benchmark starts it.
    struct RecoveryChild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recovery-child",
            abstract: "The recovery benchmark's child: fills a store, then waits for SIGKILL.",
            shouldDisplay: false)

        @Option(help: "The store directory.")
        var store: String

        @Option(help: "Records to create before the edits.")
        var records = 10_000

        @Option(help: "The checkpoint interval, in entries.")
        var interval = Int(CheckpointPolicy().entryCountMax)

        @Option(help: "The store configuration.")
        var configuration: StoreConfiguration

        @Option(help: "The store key, as 64 hexadecimal digits (used by defaultEncrypted only).")
        var keyHex: String

        func validate() throws {
            try OptionCheck.atLeast(100, ["records": records])
            try OptionCheck.atLeast(1, ["interval": interval])
        }

        func run() async throws {
            let key = configuration == .defaultEncrypted ? try StoreKey(hex: keyHex) : nil
            try RecoveryBenchmark.child(
                store: store, recordCount: records, interval: UInt64(interval), configuration: configuration,
                key: key)
        }
    }
}
