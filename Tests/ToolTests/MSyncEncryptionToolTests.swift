import Foundation
import SyncTesting
import Testing

/// `msync` on an encrypted store: the key from a file or the environment, clear refusals
/// without it, `generate-key`, `rotate-key`, and `journal-replay` with the key in the environment.
@Suite struct MSyncEncryptionToolTests {
    let msync: BuiltProduct
    let directory: TemporaryDirectory
    let store: String

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("msync-keys")
        store = directory.appending("store").path
    }

    @discardableResult
    private func run(_ arguments: [String], expecting status: Int32 = 0, environment: [String: String]? = nil)
        async throws
        -> BuiltProduct.Output
    {
        let output = try await msync.run(arguments + ["--store", store], environment: environment)
        #expect(output.status == status, "\(arguments): \(output.standardError)")
        return output
    }

    private func keyFile(_ name: String) async throws -> String {
        let hex = try await run(["generate-key"]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hex.count == 64)
        let path = directory.appending(name).path
        try Data((hex + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func anEncryptedStoreOpensOnlyWithItsKeyAndRotatingTheKeySwapsWhichKeyOpensIt() async throws {
        defer { directory.remove() }
        let first = try await keyFile("first.key")
        let second = try await keyFile("second.key")
        try await run(["register-soup", "accounts", "--index", "Name:string", "--key-file", first])
        try await run(["create", "accounts", #"{"Name":"Acme Secret Works"}"#, "--key-file", first])

        let withoutKey = try await run(["soups"], expecting: 2)
        #expect(withoutKey.standardError.contains("encrypted"))
        let wrongKey = try await run(["soups", "--key-file", second], expecting: 2)
        #expect(wrongKey.standardError.contains("does not open this store"))

        let rotated = try await run(["rotate-key", "--key-file", first, "--new-key-file", second])
        #expect(rotated.standardOutput.contains("re-encrypted"))
        try await run(["soups", "--key-file", first], expecting: 2)
        let hex = try String(contentsOfFile: second, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["SYNCJOURNAL_KEY"] = hex
        let query = try await run(["query", "accounts", "--exact", "Name=Acme Secret Works"], environment: environment)
        #expect(query.standardOutput.contains("Acme Secret Works"))

        let replay = try BuiltProduct("journal-replay")
        let verified = try await replay.run(["verify", store], environment: environment)
        #expect(verified.status == 0, "\(verified.standardError)")
        let info = try await replay.run(["info", store], environment: environment)
        #expect(info.standardOutput.contains("encryption:     AES-GCM"), "\(info.standardOutput)")
    }
}
