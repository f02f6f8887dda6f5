public import ArgumentParser
public import EventJournal

/// The command-line options that set a store's ``EventJournal/RetentionPolicy``, shared by
/// `msync` and `journal-replay compact`.
///
/// Without any of them the library's default for apps applies
/// (``EventJournal/RetentionPolicy/appDefault``); any limit given replaces the default's limits.
public struct RetentionOptions: ParsableArguments, Sendable {
    @Option(help: "Keep at most this many days of history (fractions allowed).")
    public var retainDays: Double?

    @Option(help: "Keep at most this many of the newest journal entries.")
    public var retainEntries: UInt64?

    @Option(help: "Keep at most this many MiB of the newest journal entries.")
    public var retainMib: Double?

    @Flag(help: "Keep the whole history: never compact.")
    public var keepAllHistory = false

    /// Creates the options with nothing set.
    public init() {}

    public func validate() throws {
        if keepAllHistory, retainDays != nil || retainEntries != nil || retainMib != nil {
            throw ValidationError("--keep-all-history cannot be combined with a --retain-… limit")
        }
        if let retainDays, !(retainDays > 0) { throw ValidationError("--retain-days must be positive") }
        if let retainMib, !(retainMib > 0) { throw ValidationError("--retain-mib must be positive") }
        if retainEntries == 0 { throw ValidationError("--retain-entries must be at least 1") }
    }

    /// The policy these options describe.
    public var policy: RetentionPolicy {
        if keepAllHistory { return .unlimited }
        guard retainDays != nil || retainEntries != nil || retainMib != nil else { return .appDefault }
        return RetentionPolicy(
            age: retainDays.map { .milliseconds(Int64(($0 * 86_400_000).rounded())) }, entryCount: retainEntries,
            journalBytes: retainMib.map { Int(($0 * 1_048_576).rounded()) })
    }
}
