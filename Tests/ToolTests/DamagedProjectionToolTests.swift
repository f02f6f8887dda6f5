import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// Issue 25 through the tools: a damaged `projections/data.mdb` (truncated, or a page zeroed)
/// never ends `msync query`, `journal-replay info` or `verify` with a signal. Damage found
/// before mapping is rebuilt on open; a damaged page met while reading ends one command with
/// one line and status 3, and the next command rebuilds (decision 0013).
@Suite(.enabled(if: DataFileHeader.checksLinkedLibrary)) struct DamagedProjectionToolTests {
    static let keyHex = String(repeating: "c4", count: StoreKey.byteCount)
    static let timeLimit = Duration.seconds(10)

    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        (msync, replay, directory) = try ToolWorkspace.make("damaged-projections-tools")
    }

    /// A closed store with 300 records of about 200 bytes in soup `acc`.
    private func makeStore(encrypted: Bool) throws -> URL {
        let url = directory.appending(encrypted ? "pristine-encrypted" : "pristine")
        var options = JournalOptions()
        options.encryption = encrypted ? try StoreKey(hex: Self.keyHex) : nil
        let store = try SyncStore(
            directory: url, clock: ManualWallClock(), idGenerator: IncrementingIDGenerator(), options: options,
            logger: .discarding)
        try store.soups.registerSoup("acc", indexSpecs: [IndexSpec(path: "Name", type: .string)])
        let records = (1...300).map { n -> JSONValue in
            ["Name": .string("account \(n)"), "Notes": .string(String(repeating: "n\(n % 10)", count: 90))]
        }
        _ = try store.soups.create("acc", records)
        try store.journal.close()
        return url
    }

    private func environment(encrypted: Bool) -> [String: String] {
        ToolWorkspace.environment(keyHex: encrypted ? Self.keyHex : nil)
    }

    /// A fresh copy of `pristine` whose projections file `damage` changed.
    private func damagedCopy(of pristine: URL, _ name: String, _ damage: (inout Data) -> Void) throws -> URL {
        let copy = directory.appending(name)
        try FileManager.default.copyItem(at: pristine, to: copy)
        let file = copy.appendingPathComponent("projections/data.mdb")
        var bytes = try Data(contentsOf: file)
        damage(&bytes)
        try bytes.write(to: file)
        return copy
    }

    private func query(_ store: URL, encrypted: Bool) async throws -> BuiltProduct.Output {
        try await msync.run(
            ["query", "acc", "--store", store.path], environment: environment(encrypted: encrypted),
            timeLimit: Self.timeLimit)
    }

    @Test(arguments: [false, true])
    func readVerbsOnATruncatedProjectionsFileAnswerAsBeforeInsteadOfASignal(encrypted: Bool) async throws {
        defer { directory.remove() }
        let pristine = try makeStore(encrypted: encrypted)
        let expected = try await query(pristine, encrypted: encrypted)
        #expect(expected.status == 0, "\(expected.standardError)")
        let cuts: [(String, (Int) -> Int)] = [
            ("inside-meta-one", { _ in 4_096 + 100 }), ("half", { $0 / 2 }), ("last-pages", { $0 - 3 * 4_096 }),
        ]
        for (name, cut) in cuts {
            let truncate: (inout Data) -> Void = { bytes in bytes = bytes.prefix(cut(bytes.count)) }
            let queried = try await query(
                try damagedCopy(of: pristine, "\(name)-query", truncate), encrypted: encrypted)
            #expect(!queried.wasKilled, "\(name): \(queried.standardError)")
            #expect(queried.status == 0, "\(name): \(queried.standardError)")
            #expect(queried.standardOutput == expected.standardOutput, "\(name)")
            let infoStore = try damagedCopy(of: pristine, "\(name)-info", truncate)
            let info = try await replay.run(
                ["info", infoStore.path], environment: environment(encrypted: encrypted), timeLimit: Self.timeLimit)
            #expect(!info.wasKilled && info.status == 0, "\(name): \(info.standardError)")
            let verifyStore = try damagedCopy(of: pristine, "\(name)-verify", truncate)
            let verified = try await replay.run(
                ["verify", verifyStore.path], environment: environment(encrypted: encrypted), timeLimit: Self.timeLimit)
            #expect(!verified.wasKilled && verified.status == 1, "\(name): \(verified.standardError)")
            #expect(verified.standardOutput.contains("projections damaged:"), "\(name): \(verified.standardOutput)")
            // verify only reads (decision 0024): the damage stays until a writing open repairs it.
            let unrepaired = try await replay.run(
                ["verify", verifyStore.path], environment: environment(encrypted: encrypted), timeLimit: Self.timeLimit)
            #expect(unrepaired.status == 1, "\(name): \(unrepaired.standardOutput) \(unrepaired.standardError)")
            let rebuilt = try await replay.run(
                ["rebuild", verifyStore.path], environment: environment(encrypted: encrypted), timeLimit: Self.timeLimit
            )
            #expect(rebuilt.status == 0, "\(name): \(rebuilt.standardError)")
            let again = try await replay.run(
                ["verify", verifyStore.path], environment: environment(encrypted: encrypted), timeLimit: Self.timeLimit)
            #expect(again.status == 0, "\(name): \(again.standardOutput) \(again.standardError)")
        }
    }

    /// A zeroed page past the meta pages cannot be seen before mapping: the command that meets
    /// it ends with one line and status 3 (or answers, when it never reads that page), and the
    /// next command answers as before.
    @Test(arguments: [false, true])
    func aZeroedPageEndsAtMostOneCommandWithOneLineAndTheNextAnswersAsBefore(encrypted: Bool) async throws {
        defer { directory.remove() }
        let pristine = try makeStore(encrypted: encrypted)
        let expected = try await query(pristine, encrypted: encrypted)
        let pages = (try Data(contentsOf: pristine.appendingPathComponent("projections/data.mdb"))).count / 4_096
        let chosen = Set([2, 3, pages / 4, pages / 2, 3 * pages / 4, pages - 2, pages - 1].filter { $0 >= 2 })
        for page in chosen.sorted() {
            let store = try damagedCopy(of: pristine, "zeroed-\(page)") { bytes in
                bytes.replaceSubrange(page * 4_096..<(page + 1) * 4_096, with: Data(count: 4_096))
            }
            let first = try await query(store, encrypted: encrypted)
            #expect(!first.wasKilled, "page \(page): \(first.standardError)")
            if first.status != 0 {
                #expect(first.status == 3, "page \(page): \(first.standardError)")
                #expect(first.standardError.split(separator: "\n").count == 1, "page \(page): \(first.standardError)")
            }
            let second = try await query(store, encrypted: encrypted)
            #expect(second.status == 0, "page \(page): \(second.standardError)")
            #expect(second.standardOutput == expected.standardOutput, "page \(page)")
        }
    }
}
