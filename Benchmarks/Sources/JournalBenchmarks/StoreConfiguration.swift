import ArgumentParser
import EventJournal

/// The stores every storage benchmark measures side by side in one invocation (issue 25): what an
/// app gets by default, plaintext and encrypted, and the same store keeping all its history.
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

    /// How the lines for people name this configuration.
    var label: String {
        switch self {
        case .default: "app default (default retention, plaintext)"
        case .defaultEncrypted: "app default, encrypted (default retention, AES-GCM)"
        case .unlimited: "unlimited history (RetentionPolicy.unlimited, plaintext)"
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
        }
        return options
    }

    /// A new random key, as an app keeps in its keychain: a seeded one would measure nothing more.
    static func randomKey() throws -> StoreKey {
        try StoreKey(hex: StoreKey.generateHex())
    }
}
