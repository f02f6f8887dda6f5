import ArgumentParser

/// The benchmarks of SyncJournal, one subcommand each (docs/benchmarks.md).
///
/// Every subcommand prints its figures as lines for a person and, with `--json`, one JSON
/// document of them on standard output (the lines then go to standard error). The storage
/// benchmarks run every ``StoreConfiguration`` (the app defaults plaintext and encrypted, and
/// unlimited history) in one invocation, beside their baselines.
@main
struct JournalBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal-benchmarks",
        abstract: "Benchmarks of the journal, the soups and the sync engine, beside SQLite and SQLCipher.",
        discussion: """
            Run in release on an idle machine: swift run -c release --package-path Benchmarks journal-benchmarks \
            soup --records 100000. Storage benchmarks measure the app defaults (plaintext and encrypted) and \
            unlimited history in one run; --configuration picks some of them. --json prints one JSON document \
            whose fields docs/benchmarks.md lists.
            """,
        subcommands: [
            Append.self, StateAsOf.self, StateAsOfSoups.self, Soup.self, Floor.self, SyncDown.self, SyncDownHTTP.self,
            SyncUpHTTP.self, Recovery.self, RecoveryChild.self, Fold.self, Compaction.self, SmartSQL.self, Codec.self,
        ])
}
