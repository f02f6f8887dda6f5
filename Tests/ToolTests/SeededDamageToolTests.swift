import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// Issues 25 and 49's damage campaign through the tools: 300 seeded damages of a store's derived
/// files (the projections and its checkpoints; truncated at a page boundary or not, a page zeroed
/// or filled with random bytes, 1–64 bytes flipped anywhere, branch and index pages included),
/// plaintext and encrypted. No command dies by a signal twice on one store, no command answers with changed
/// data, and every store ends rebuilt and verified, answering as it did before the damage.
@Suite(.enabled(if: DataFileHeader.checksLinkedLibrary)) struct SeededDamageToolTests {
    static let keyHex = String(repeating: "d7", count: StoreKey.byteCount)
    static let timeLimit = Duration.seconds(10)
    static let caseCount = 300
    static let laneCount = 4
    static let pageSize = 4_096
    /// The entry `state --as-of` asks about: past the first checkpoints, before the newest.
    static let asOf = 25

    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        (msync, replay, directory) = try ToolWorkspace.make("seeded-damage")
    }

    /// How one case damages one file.
    enum Damage: CustomStringConvertible {
        case truncated(to: Int)
        case zeroedPage(Int)
        case randomPage(Int, seed: UInt64)
        case flipped([(offset: Int, mask: UInt8)])

        static func random(fileSize: Int, using generator: inout SplitMix64) -> Damage {
            let pages = max(1, fileSize / SeededDamageToolTests.pageSize)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                let pageAligned = Bool.random(using: &generator)
                let length =
                    pageAligned
                    ? Int.random(in: 0..<pages, using: &generator) * SeededDamageToolTests.pageSize
                    : Int.random(in: 0..<fileSize, using: &generator)
                return .truncated(to: length)
            case 1: return .zeroedPage(Int.random(in: 0..<pages, using: &generator))
            case 2: return .randomPage(Int.random(in: 0..<pages, using: &generator), seed: generator.next())
            default:
                let flips = (0..<Int.random(in: 1...64, using: &generator)).map { _ in
                    (
                        offset: Int.random(in: 0..<fileSize, using: &generator),
                        mask: UInt8.random(in: 1...UInt8.max, using: &generator)
                    )
                }
                return .flipped(flips)
            }
        }

        func apply(to bytes: inout Data) {
            switch self {
            case .truncated(let length): bytes = bytes.prefix(length)
            case .zeroedPage(let page):
                let start = page * SeededDamageToolTests.pageSize
                bytes.replaceSubrange(
                    start..<min(bytes.count, start + SeededDamageToolTests.pageSize),
                    with: Data(count: min(bytes.count - start, SeededDamageToolTests.pageSize)))
            case .randomPage(let page, let seed):
                var random = SplitMix64(seed: seed)
                let start = page * SeededDamageToolTests.pageSize
                for offset in start..<min(bytes.count, start + SeededDamageToolTests.pageSize) {
                    bytes[offset] = UInt8.random(in: 0...UInt8.max, using: &random)
                }
            case .flipped(let flips):
                for flip in flips { bytes[flip.offset] ^= flip.mask }
            }
        }

        var description: String {
            switch self {
            case .truncated(let length): "truncated to \(length) bytes"
            case .zeroedPage(let page): "page \(page) zeroed"
            case .randomPage(let page, _): "page \(page) filled with random bytes"
            case .flipped(let flips): "bytes flipped at \(flips.map(\.offset))"
            }
        }
    }

    /// What a store answers before any damage: the query, and the state as of ``asOf``.
    struct Answers {
        var query: String
        var state: String
    }

    /// A closed store with 300 records in soup `acc`, written in 30 entries, a checkpoint every
    /// 10 entries.
    private func makeStore(encrypted: Bool) throws -> URL {
        let url = directory.appending(encrypted ? "pristine-encrypted" : "pristine")
        var options = JournalOptions()
        options.encryption = encrypted ? try StoreKey(hex: Self.keyHex) : nil
        options.checkpoints.entryCountMax = 10
        let store = try SyncStore(
            directory: url, clock: ManualWallClock(), idGenerator: IncrementingIDGenerator(), options: options,
            logger: .discarding)
        try store.soups.registerSoup("acc", indexSpecs: [IndexSpec(path: "Name", type: .string)])
        for batch in 0..<30 {
            let records = (1...10).map { n -> JSONValue in
                let number = batch * 10 + n
                return ["Name": .string("account \(number)"), "Notes": .string(String(repeating: "n\(n)", count: 60))]
            }
            _ = try store.soups.create("acc", records)
        }
        try store.journal.close()
        return url
    }

    private func environment(encrypted: Bool) -> [String: String] {
        ToolWorkspace.environment(keyHex: encrypted ? Self.keyHex : nil)
    }

    private func query(_ store: URL, encrypted: Bool) async throws -> BuiltProduct.Output {
        try await msync.run(
            ["query", "acc", "--store", store.path], environment: environment(encrypted: encrypted),
            timeLimit: Self.timeLimit)
    }

    private func state(_ store: URL, encrypted: Bool) async throws -> BuiltProduct.Output {
        try await replay.run(
            ["state", store.path, "--as-of", String(Self.asOf), "--json"],
            environment: environment(encrypted: encrypted),
            timeLimit: Self.timeLimit)
    }

    private func verify(_ store: URL, encrypted: Bool) async throws -> BuiltProduct.Output {
        try await replay.run(
            ["verify", store.path], environment: environment(encrypted: encrypted), timeLimit: Self.timeLimit)
    }

    /// The damageable files of `store`: its projections and every checkpoint's copy of them.
    private func derivedFiles(of store: URL) throws -> [String] {
        let checkpoints = store.appendingPathComponent("checkpoints")
        let names = try FileManager.default.contentsOfDirectory(atPath: checkpoints.path).sorted()
        return ["projections/data.mdb"]
            + names.filter { Int($0) != nil }.map { "checkpoints/\($0)/data.mdb" }
    }

    @Test(arguments: 0..<laneCount)
    func seededDamageNeverKillsACommandTwiceNorAnswersWrongAndEndsRebuiltAndVerified(lane: Int) async throws {
        defer { directory.remove() }
        var pristine: [Bool: (url: URL, answers: Answers, files: [String])] = [:]
        for encrypted in [false, true] {
            let url = try makeStore(encrypted: encrypted)
            let answeredQuery = try await query(url, encrypted: encrypted)
            let answeredState = try await state(url, encrypted: encrypted)
            #expect(answeredQuery.status == 0 && answeredState.status == 0, "\(answeredState.standardError)")
            let files = try derivedFiles(of: url)
            #expect(files.count >= 3, "the pristine store has checkpoints: \(files)")
            pristine[encrypted] = (
                url, Answers(query: answeredQuery.standardOutput, state: answeredState.standardOutput), files
            )
        }
        var failedCommands = 0
        var signalCount = 0
        for number in stride(from: lane, to: Self.caseCount, by: Self.laneCount) {
            var generator = SplitMix64(seed: 20_261_126 &+ UInt64(number))
            let encrypted = Bool.random(using: &generator)
            guard let source = pristine[encrypted], let file = source.files.randomElement(using: &generator) else {
                continue
            }
            let store = directory.appending("case-\(number)")
            try FileManager.default.copyItem(at: source.url, to: store)
            let target = store.appendingPathComponent(file)
            var bytes = try Data(contentsOf: target)
            let damage = Damage.random(fileSize: bytes.count, using: &generator)
            damage.apply(to: &bytes)
            try bytes.write(to: target)
            let label = "case \(number) (\(encrypted ? "encrypted" : "plaintext"), \(file) \(damage))"
            let (failed, signals) = try await check(store, label: label, encrypted: encrypted, expected: source.answers)
            failedCommands += failed
            signalCount += signals
            try? FileManager.default.removeItem(at: store)
        }
        print(
            "seeded damage, lane \(lane): \(Self.caseCount / Self.laneCount) cases, \(failedCommands) commands failed "
                + "once (\(signalCount) by a signal), every store healed and verified")
    }

    /// Whether a line of standard error is a progress line (`verifying: 40% (12/31)`), not a
    /// message.
    private static func isProgress(_ line: Substring) -> Bool {
        line.contains("% (") && line.hasSuffix(")")
    }

    /// Runs the query, the state as of ``asOf`` and `verify` on a damaged store until each
    /// answers as before: a command may fail once (status 3 with one line, or a signal once
    /// per store), never answer with other data, and the store ends verified.
    /// - Returns: how many commands failed once, and how many of those by a signal.
    private func check(_ store: URL, label: String, encrypted: Bool, expected: Answers) async throws -> (
        failed: Int, signals: Int
    ) {
        var signals = 0
        var failed = 0
        func judge(_ output: BuiltProduct.Output, _ command: String, expecting answer: String?) -> Bool {
            #expect(!output.timedOut, "\(label): \(command) hung")
            if output.wasKilled {
                signals += 1
                #expect(signals <= 1, "\(label): \(command) died by signal \(output.status), the second on this store")
                return false
            }
            if output.status == 0, let answer {
                #expect(output.standardOutput == answer, "\(label): \(command) answered with changed data")
                return true
            }
            return output.status == 0
        }
        let commands: [(String, () async throws -> BuiltProduct.Output, String?)] = [
            ("query", { try await query(store, encrypted: encrypted) }, expected.query),
            ("state --as-of", { try await state(store, encrypted: encrypted) }, expected.state),
            ("verify", { try await verify(store, encrypted: encrypted) }, nil),
        ]
        for (name, run, answer) in commands {
            let first = try await run()
            if judge(first, name, expecting: answer) { continue }
            failed += 1
            if !first.wasKilled {
                // A damaged read is one line and status 3; verify reports damage with status 1.
                #expect([1, 3].contains(first.status), "\(label): \(name) status \(first.status)")
                let lines = first.standardError.split(separator: "\n").filter { !Self.isProgress($0) }
                #expect(lines.count <= 1, "\(label): \(name): \(first.standardError)")
            }
            let second = try await run()
            #expect(
                judge(second, name, expecting: answer),
                "\(label): \(name) again: status \(second.status) \(second.standardOutput) \(second.standardError)")
        }
        let last = try await query(store, encrypted: encrypted)
        #expect(last.status == 0 && last.standardOutput == expected.query, "\(label): the healed store")
        return (failed, signals)
    }
}
