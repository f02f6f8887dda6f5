public import ArgumentParser
public import EventJournal

/// The command-line options that set a store's `RetentionPolicy`, shared by
/// `msync` and `journal-replay compact`.
///
/// Without any of them the library's default for apps applies
/// (`RetentionPolicy.appDefault`); any limit given replaces the default's limits.
public struct RetentionOptions: ParsableArguments, Sendable {
    @Option(help: "Keep at most this many days of history (fractions allowed).")
    public var retainDays: Double?

    @Option(help: "Keep at most this many of the newest journal entries.")
    public var retainEntries: UInt64?

    @Option(help: "Keep at most this many MiB of the newest journal entries.")
    public var retainMib: Double?

    @Flag(help: "Keep the whole history: never compact.")
    public var keepAllHistory = false

    /// The longest history `--retain-days` accepts: 100 years. Past it a limit means nothing,
    /// and its milliseconds would no longer fit the policy's `Duration` arithmetic.
    public static let retainDaysMax: Double = 36_500

    /// The most `--retain-mib` accepts: 1 TiB, the largest map a store grows to
    /// (`EnvironmentOptions.mapSizeMaxBytes`), so a journal never holds more.
    public static let retainMibMax: Double = 1_048_576

    /// Creates the options with nothing set.
    public init() {}

    public func validate() throws {
        if keepAllHistory, retainDays != nil || retainEntries != nil || retainMib != nil {
            throw ValidationError("--keep-all-history cannot be combined with a --retain-… limit")
        }
        // `!(x > 0 && x <= max)` also refuses NaN, which fails every comparison.
        if let retainDays, !(retainDays > 0 && retainDays <= Self.retainDaysMax) {
            throw ValidationError(
                "--retain-days must be more than 0 and at most \(Int(Self.retainDaysMax)) (100 years)")
        }
        if let retainMib, !(retainMib > 0 && retainMib <= Self.retainMibMax) {
            throw ValidationError("--retain-mib must be more than 0 and at most \(Int(Self.retainMibMax)) (1 TiB)")
        }
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
