public import ArgumentParser
public import EventJournal
import Foundation

/// The command-line option that gives a store's encryption key, shared by the tools.
///
/// The key comes from `--key-file`, else from the file `$SYNCJOURNAL_KEY_FILE` names, else from
/// `$SYNCJOURNAL_KEY` (64 hexadecimal digits); with none of them the store is opened without a
/// key (a plaintext store). A key on the command line itself would show in the process list,
/// so there is no such option.
public struct KeyOptions: ParsableArguments, Sendable {
    @Option(
        help: ArgumentHelp(
            "A file holding the store's key: 32 bytes, or 64 hexadecimal digits (or $SYNCJOURNAL_KEY_FILE, "
                + "or the digits in $SYNCJOURNAL_KEY).", valueName: "file"))
    public var keyFile: String?

    /// Creates the options with nothing set.
    public init() {}

    /// The key these options and the environment give, or `nil` for none.
    /// - Throws: `JournalError.Code.invalidKey` for a file or variable that
    ///   holds no key.
    public func key() throws -> StoreKey? {
        try Self.key(file: keyFile, environment: ProcessInfo.processInfo.environment)
    }

    /// The key in `file`, else the one `environment` gives, or `nil` for none.
    public static func key(file: String?, environment: [String: String]) throws -> StoreKey? {
        if let file = file ?? environment["SYNCJOURNAL_KEY_FILE"] {
            return try StoreKey(contentsOf: URL(fileURLWithPath: file))
        }
        return try environment["SYNCJOURNAL_KEY"].map { try StoreKey(hex: $0) }
    }
}
