import Foundation
import LMDBStore
import SyncTesting
import Testing

/// `msync` on a plaintext store whose soup record was damaged on disk (decision 0012): the read
/// fails with one line and exit status 3, and the next command finds the store healed.
@Suite struct MSyncCheckedReadToolTests {
    @Test func aDamagedRecordIsStatusThreeOnOneLineAndTheNextCommandReadsItHealed() async throws {
        let msync = try BuiltProduct("msync")
        let directory = try TemporaryDirectory("msync-damaged")
        defer { directory.remove() }
        let store = directory.appending("store")
        @discardableResult
        func run(_ arguments: [String], expecting status: Int32 = 0) async throws -> BuiltProduct.Output {
            let output = try await msync.run(arguments + ["--store", store.path])
            #expect(output.status == status, "\(arguments): \(output.standardError)")
            return output
        }
        try await run(["register-soup", "accounts", "--index", "Name:string"])
        try await run(["create", "accounts", #"{"Name":"Acme"}"#])
        do {
            // Past the seal: the bytes as stored, so the change keeps the old checksum.
            let environment = try Environment(directory: store.appendingPathComponent("projections"))
            let records = try environment.database(named: "soups.records")
            try environment.write { transaction in
                let (key, value) = try #require(try transaction.withCursor(records) { try $0.first() })
                var damaged = value
                damaged[damaged.count / 2] ^= 0x01
                try transaction.put(records, key: key, value: damaged)
            }
        }

        let failed = try await run(["query", "accounts"], expecting: 3)
        #expect(failed.standardError.split(separator: "\n").count == 1, "\(failed.standardError)")
        #expect(failed.standardError.contains("soups.records"), "\(failed.standardError)")
        #expect(!failed.standardOutput.contains("Acme"))
        let healed = try await run(["query", "accounts"])
        #expect(healed.standardOutput.contains("Acme"), "\(healed.standardOutput)")
    }
}
