import Foundation
import LMDBStore
import SyncTesting
import Testing

/// Issue 29 through the tools: a journal that lost entries is exit 3 with one line, `recover`
/// keeps the data, and read verbs neither move files nor take non-stores for stores. Issue 49:
/// so is a journal file truncated part-way, never a signal.
@Suite struct LostJournalToolTests {
    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        (msync, replay, directory) = try ToolWorkspace.make("lost-journal-tools")
    }

    /// A store with a soup and three local creates.
    private func makeStore() async throws -> URL {
        let store = directory.appending("store")
        #expect(
            try await msync.run(["--store", store.path, "register-soup", "acc", "--index", "Id:string"]).status == 0)
        for n in 1...3 {
            #expect(try await msync.run(["--store", store.path, "create", "acc", "{\"Name\":\"n\(n)\"}"]).status == 0)
        }
        return store
    }

    @Test func aDeletedJournalIsExitThreeWithOneLineThenRecoverKeepsTheDirtyRecords() async throws {
        defer { directory.remove() }
        let store = try await makeStore()
        let dirtyBefore = try await msync.run(["--store", store.path, "dirty", "acc"]).standardOutput
        try FileManager.default.removeItem(at: store.appendingPathComponent("journal/data.mdb"))
        for run in await [
            try msync.run(["--store", store.path, "soups"]), try replay.run(["verify", store.path]),
            try replay.run(["info", store.path]),
        ] {
            #expect(run.status == 3, "\(run.standardError)")
            #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
            #expect(run.standardError.contains("folded through entry 4"))
            #expect(run.standardError.contains("journal-replay recover"))
        }
        #expect(!FileManager.default.fileExists(atPath: store.appendingPathComponent("journal/data.mdb").path))
        let recover = try await replay.run(["recover", store.path])
        #expect(recover.status == 0, "\(recover.standardError)")
        #expect(recover.standardOutput.contains("damaged-1"))
        #expect(try await msync.run(["--store", store.path, "dirty", "acc"]).standardOutput == dirtyBefore)
        #expect(try await replay.run(["verify", store.path]).status == 0)
        let again = try await replay.run(["recover", store.path])
        #expect(again.status == 3)
        #expect(again.standardError.contains("nothing to recover"))
    }

    @Test(.enabled(if: DataFileHeader.checksLinkedLibrary), arguments: [0, 1_000])
    func aTruncatedJournalIsExitThreeNamingTheFileNeverASignalThenRecoverKeepsTheRecords(
        bytesIntoAPage: Int
    ) async throws {
        defer { directory.remove() }
        let store = try await makeStore()
        let records = try await msync.run(["--store", store.path, "query", "acc"])
        let dirtyBefore = try await msync.run(["--store", store.path, "dirty", "acc"]).standardOutput
        let journalFile = store.appendingPathComponent("journal/data.mdb")
        let header = try #require(try DataFileHeader.read(from: journalFile))
        let bytes = try Data(contentsOf: journalFile)
        let kept = 3 * header.pageSizeBytes + bytesIntoAPage
        try #require(bytes.count > kept + header.pageSizeBytes, "the journal has pages to lose")
        try bytes.prefix(kept).write(to: journalFile)
        for run in await [
            try msync.run(["--store", store.path, "query", "acc"]), try replay.run(["info", store.path]),
            try replay.run(["verify", store.path]),
        ] {
            #expect(!run.wasKilled, "\(run.standardError)")
            #expect(run.status == 3, "\(run.standardError)")
            #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
            #expect(run.standardError.contains(journalFile.standardizedFileURL.path), "\(run.standardError)")
            #expect(run.standardError.contains("journal-replay recover"), "\(run.standardError)")
        }
        #expect(try Data(contentsOf: journalFile) == bytes.prefix(kept))
        let recover = try await replay.run(["recover", store.path])
        #expect(recover.status == 0, "\(recover.standardError)")
        #expect(recover.standardOutput.contains("damaged-1"))
        #expect(try await msync.run(["--store", store.path, "query", "acc"]).standardOutput == records.standardOutput)
        #expect(try await msync.run(["--store", store.path, "dirty", "acc"]).standardOutput == dirtyBefore)
        #expect(try await replay.run(["verify", store.path]).status == 0)
    }

    /// The store's files (LMDB's lock files aside) and their bytes.
    private func contents(of store: URL) throws -> [String: Data] {
        let walker = try #require(FileManager.default.enumerator(atPath: store.path))
        var files: [String: Data] = [:]
        for case let path as String in walker where !path.hasSuffix("lock.mdb") && path != "store.lock" {
            let url = store.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[path] = try Data(contentsOf: url)
            } else {
                files[path + "/"] = Data()
            }
        }
        return files
    }

    @Test func recoverOpensAnEncryptedStoreWithItsKeyAndRefusesAWrongKeyChangingNothing() async throws {
        defer { directory.remove() }
        var keyed = ProcessInfo.processInfo.environment
        keyed["SYNCJOURNAL_KEY"] = String(repeating: "4a", count: 32)
        var wrong = keyed
        wrong["SYNCJOURNAL_KEY"] = String(repeating: "4b", count: 32)
        let store = directory.appending("store")
        #expect(
            try await msync.run(
                ["--store", store.path, "register-soup", "acc", "--index", "Id:string"], environment: keyed
            ).status == 0)
        for n in 1...3 {
            let created = try await msync.run(
                ["--store", store.path, "create", "acc", "{\"Name\":\"n\(n)\"}"], environment: keyed)
            #expect(created.status == 0, "\(created.standardError)")
        }
        let records = try await msync.run(["--store", store.path, "query", "acc"], environment: keyed)
        let dirtyBefore = try await msync.run(["--store", store.path, "dirty", "acc"], environment: keyed)
        try FileManager.default.removeItem(at: store.appendingPathComponent("journal/data.mdb"))
        let before = try contents(of: store)
        let refused = try await replay.run(["recover", store.path], environment: wrong)
        #expect(refused.status == 3, "\(refused.standardError)")
        #expect(refused.standardError.contains("does not open"), "\(refused.standardError)")
        #expect(try contents(of: store) == before)
        let recover = try await replay.run(["recover", store.path], environment: keyed)
        #expect(recover.status == 0, "\(recover.standardError)")
        #expect(recover.standardOutput.contains("damaged-1"))
        let after = try await msync.run(["--store", store.path, "query", "acc"], environment: keyed)
        #expect(after.standardOutput == records.standardOutput)
        let dirtyAfter = try await msync.run(["--store", store.path, "dirty", "acc"], environment: keyed)
        #expect(dirtyAfter.standardOutput == dirtyBefore.standardOutput)
        #expect(try await replay.run(["verify", store.path], environment: keyed).status == 0)
    }

    @Test func infoOnAProjectionsFolderChangesNothingAndNamesTheStore() async throws {
        defer { directory.remove() }
        let store = try await makeStore()
        let projections = store.appendingPathComponent("projections")
        let before = try FileManager.default.contentsOfDirectory(atPath: projections.path).sorted()
        let bytes = try Data(contentsOf: projections.appendingPathComponent("data.mdb"))
        let info = try await replay.run(["info", projections.path])
        #expect(info.status == 3)
        #expect(info.standardError.contains("projections folder of the store"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: projections.path).sorted() == before)
        #expect(try Data(contentsOf: projections.appendingPathComponent("data.mdb")) == bytes)
        await #expect(
            try msync.run(["--store", store.path, "dirty", "acc"]).standardOutput.split(separator: "\n").count == 3)
    }

    @Test func pathsThatAreNotStoresAreRefusedAndEmptyPathsAreBadInput() async throws {
        defer { directory.remove() }
        let file = directory.appending("plain")
        try Data("x".utf8).write(to: file)
        let emptyJournal = directory.appending("empty-journal")
        try FileManager.default.createDirectory(
            at: emptyJournal.appendingPathComponent("journal"), withIntermediateDirectories: true)
        try Data().write(to: emptyJournal.appendingPathComponent("journal/data.mdb"))
        for path in [file.path, emptyJournal.path, directory.appending("missing").path] {
            for verb in ["info", "verify", "log", "export", "state"] {
                let run = try await replay.run([verb, path])
                #expect(run.status == 3, "\(verb) \(path): \(run.standardError)")
                #expect(run.standardError.split(separator: "\n").count == 1)
            }
        }
        #expect(try Data(contentsOf: emptyJournal.appendingPathComponent("journal/data.mdb")).isEmpty)
        for arguments in [
            ["verify", ""], ["import", "x", ""], ["import", "", "S"], ["recover", ""], ["diff", "", ""],
        ] {
            let run = try await replay.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run.standardError)")
        }
        #expect(try await msync.run(["--store", "", "soups"]).status == 2)
    }
}
