import ArgumentParser
import EventJournal

/// The stores every storage benchmark measures side by side in one invocation (issue 25): what an
/// app gets by default, plaintext and encrypted, the same store keeping all its history, and the
/// same store storing its entries uncompressed, as before decision 0029.
///
/// The raw values are the keys of the benchmarks' JSON figures.
enum StoreConfiguration: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// `JournalOptions()` as an app gets it: the default retention (`RetentionPolicy.appDefault`),
    /// plaintext.
    case `default`
    /// The default options with a random `StoreKey`: every value sealed with AES-GCM.
    case defaultEncrypted
    /// The default options but `RetentionPolicy.unlimited`: nothing is ever compacted away.
    case unlimited
    /// The default options but `compressesEntries` off: every entry in its canonical envelope, so
    /// one run shows what compressing the journal's entries saves and costs (decision 0029).
    case uncompressed

    /// How the lines for people name this configuration.
    var label: String {
        switch self {
        case .default: "app default (default retention, plaintext)"
        case .defaultEncrypted: "app default, encrypted (default retention, AES-GCM)"
        case .unlimited: "unlimited history (RetentionPolicy.unlimited, plaintext)"
        case .uncompressed: "app default, entries uncompressed (compressesEntries off, plaintext)"
        }
    }

    /// `options` as this configuration sets them: its retention and, when encrypted, `key` (a new
    /// random one when `nil`).
    func applied(to options: JournalOptions, key: StoreKey? = nil) throws -> JournalOptions {
        var options = options
        switch self {
        case .default:
            break
        case .defaultEncrypted:
            options.encryption = try key ?? Self.randomKey()
        case .unlimited:
            options.retention = .unlimited
        case .uncompressed:
            options.compressesEntries = false
        }
        return options
    }

    /// A new random key, as an app keeps in its keychain: a seeded one would measure nothing more.
    static func randomKey() throws -> StoreKey {
        try StoreKey(hex: StoreKey.generateHex())
    }
}
