import ArgumentParser
import EventJournal
import Foundation
import ToolSupport

extension MSync {
    struct GenerateKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new random 256-bit store key as 64 hexadecimal digits.",
            discussion: """
                Save it in a file readable only by you (for example `msync generate-key > key && chmod 600 key`) \
                and pass it with --key-file when the store is first created: a store is encrypted from its \
                creation on, or never.
                """)

        func run() {
            print(StoreKey.generateHex())
        }
    }

    struct RotateKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-encrypt the store under a new key (the current key is --key-file).",
            discussion: """
                Every entry, projection and checkpoint is sealed again under a fresh data key that the new key \
                wraps. Crash-safe: interrupted at any moment, the store opens with exactly one of the two keys, \
                and running the same command again finishes. No other process may have the store open.
                """)

        @Option(
            help: ArgumentHelp("A file holding the new key (32 bytes or 64 hexadecimal digits).", valueName: "file"))
        var newKeyFile: String
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let report = try reportingFailures {
                guard let current = try global.key.key() else {
                    throw JournalError(.keyRequired, "give the store's current key with --key-file")
                }
                let new = try StoreKey(contentsOf: URL(fileURLWithPath: newKeyFile))
                let progress = PhasedProgress()
                defer { progress.finish() }
                return try Journal.rotateKey(directory: global.storeURL, from: current, to: new) { step in
                    progress.update("re-encrypting the \(step.part)", UInt64(step.done), of: UInt64(step.total))
                }
            }
            print(
                "re-encrypted \(global.storeURL.path): \(report.valuesResealed) values and "
                    + "\(report.checkpointsResealed) checkpoints\(report.resumed ? " (finished an interrupted rotation)" : "")"
            )
        }
    }
}
