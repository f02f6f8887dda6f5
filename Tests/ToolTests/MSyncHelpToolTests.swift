import Foundation
import SyncTesting
import Testing

/// `msync help COMMAND`: what a reader of one command's help sees first.
@Suite struct MSyncHelpToolTests {
    /// The command's own options come before the options every command shares (store,
    /// connection, history, encryption), so `--exact` is not buried under twenty other lines.
    @Test(arguments: [
        ("query", "--exact"), ("sync-down", "--merge-mode"), ("smart-query", "--explain"), ("update", "<changes>"),
    ])
    func aCommandsOwnOptionsComeBeforeTheSharedOnes(command: String, ownOption: String) async throws {
        let help = try await BuiltProduct("msync").run(["help", command])
        #expect(help.status == 0, "\(help.standardError)")
        let text = help.standardOutput
        let own = try #require(text.range(of: ownOption), "\(command)'s help lacks \(ownOption)")
        for shared in ["--store", "--instance-url", "--key-file"] {
            let sharedRange = try #require(text.range(of: shared), "\(command)'s help lacks \(shared)")
            #expect(own.lowerBound < sharedRange.lowerBound, "\(command): \(shared) comes before \(ownOption)")
        }
    }
}
