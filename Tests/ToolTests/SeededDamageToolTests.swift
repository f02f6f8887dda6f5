import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Synchronization
import Testing

/// Issues 25 and 49's damage campaign through the tools: 300 seeded damages of a store's files
/// (its journal, its projections and its checkpoints; truncated at a page boundary or not, a page
/// zeroed or filled with random bytes, 1–64 bytes flipped anywhere, branch and index pages
/// included), over plaintext and encrypted, compacted and uncompacted stores. No command dies by
/// a signal or answers with changed data, and every store ends verified, answering as before the
/// damage, or refused with a typed error that names its damaged journal and the command that
/// salvages it. The counts per outcome are printed for the issue's closing note.
@Suite(.enabled(if: DataFileHeader.checksLinkedLibrary)) struct SeededDamageToolTests {
    static let keyHex = String(repeating: "d7", count: StoreKey.byteCount)
    static let timeLimit = Duration.seconds(20)
    static let caseCount = 300
    static let laneCount = 4
    static let pageSize = 4_096
    /// The entry `state --as-of` asks about: past the first checkpoints, before the newest.
    static let asOf = 25
    /// The journal's data file, relative to a store.
    static let journalFile = "journal/data.mdb"

    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        (msync, replay, directory) = try ToolWorkspace.make("seeded-damage")
    }

    /// One of the four undamaged stores a case copies.
    struct Kind: Hashable, CustomStringConvertible {
        var encrypted: Bool
        var compacted: Bool

        static let all = [false, true].flatMap { encrypted in
            [false, true].map { Kind(encrypted: encrypted, compacted: $0) }
        }

        var description: String {
            "\(encrypted ? "encrypted" : "plaintext") \(compacted ? "compacted" : "uncompacted")"
        }
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

        /// The damage's kind, for the counts.
        var kind: String {
            switch self {
            case .truncated(let length):
                length % SeededDamageToolTests.pageSize == 0 ? "truncated at a page" : "truncated inside a page"
            case .zeroedPage: "zeroed page"
            case .randomPage: "random page"
            case .flipped: "flipped bytes"
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

    /// An undamaged store a case copies, what it answers, and the files a case may damage.
    struct Pristine {
        var url: URL
        var answers: Answers
        /// The projections' and every checkpoint's data file, relative to the store.
        var derivedFiles: [String]
    }

    /// How one case ended, for the counts the campaign prints.
    enum Outcome: String, CaseIterable, Sendable {
        /// Every command answered as before at once, and `verify` passed.
        case unchanged = "answered unchanged and verified"
        /// A command reported the damage (a status and one line), the next one healed it, and the
        /// store ends verified, answering as before.
        case healed = "reported, healed and verified"
        /// Every command that read the journal refused it with a typed error naming the journal's
        /// file and `journal-replay recover`, which then salvaged it (plaintext) or refused it
        /// (encrypted, whose keys were in the journal).
        case refused = "refused with a typed error naming the file and `recover`"
        /// Something the campaign forbids: a signal, a hang, changed data, an untyped failure.
        case broken = "broken"
    }

    /// The counts of one lane, or of the whole campaign.
    struct Tally: Sendable {
        var cases = 0
        var outcomes: [String: Int] = [:]
        /// Cases per damaged file kind (journal, projections, checkpoint) and damage kind.
        var damaged: [String: Int] = [:]
        /// `command status` (or `command signal N`) per run.
        var runs: [String: Int] = [:]
        var signals = 0
        var timeouts = 0
        var changedAnswers = 0
        /// Refused stores that `recover` salvaged, verified and answering as before.
        var salvaged = 0

        mutating func add(_ other: Tally) {
            cases += other.cases
            outcomes.merge(other.outcomes, uniquingKeysWith: +)
            damaged.merge(other.damaged, uniquingKeysWith: +)
            runs.merge(other.runs, uniquingKeysWith: +)
            signals += other.signals
            timeouts += other.timeouts
            changedAnswers += other.changedAnswers
            salvaged += other.salvaged
        }

        mutating func record(_ output: BuiltProduct.Output, of command: String) {
            let key = output.wasKilled ? "\(command) signal \(output.status)" : "\(command) status \(output.status)"
            runs[key, default: 0] += 1
            if output.timedOut { timeouts += 1 } else if output.wasKilled { signals += 1 }
        }

        var summary: String {
            func list(_ counts: [String: Int]) -> String {
                counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            }
            return """
                \(cases) cases; outcomes: \(list(outcomes)); \(salvaged) refused stores salvaged by `recover` and \
                verified; \(signals) signals, \(timeouts) hangs, \(changedAnswers) changed answers
                  damaged: \(list(damaged))
                  runs: \(list(runs))
                """
        }
    }

    /// The campaign's counts over its lanes, printed by the lane that ends last.
    static let campaign = Mutex((lanesEnded: 0, tally: Tally()))

    /// Two closed stores, uncompacted and compacted, with 290 records in soup `acc`: 300 written
    /// in 30 entries, a checkpoint every 10 entries, then 20 updated and 10 deleted one by one,
    /// which leaves free pages in the projections. The compacted store is the other's
    /// `journal-replay compact --copy`: its live pages only.
    private func makeStores(encrypted: Bool) throws -> [Kind: URL] {
        let name = "pristine-\(encrypted ? "encrypted" : "plaintext")"
        let url = directory.appending(name)
        let compacted = directory.appending(name + "-compacted")
        let store = try SyncStore(
            directory: url, clock: ManualWallClock(), idGenerator: IncrementingIDGenerator(),
            options: options(encrypted: encrypted), logger: .discarding)
        try store.soups.registerSoup("acc", indexSpecs: [IndexSpec(path: "Name", type: .string)])
        var ids: [Int64] = []
        for batch in 0..<30 {
            let records = (1...10).map { n -> JSONValue in
                let number = batch * 10 + n
                return ["Name": .string("account \(number)"), "Notes": .string(String(repeating: "n\(n)", count: 60))]
            }
            ids += try store.soups.create("acc", records).compactMap { $0["_soupEntryId"]?.number?.int64Value }
        }
        for id in ids.prefix(20) {
            _ = try store.soups.update("acc", ["Name": .string("renamed \(id)"), "Notes": "short"], entryId: id)
        }
        for id in ids.suffix(10) { try store.soups.delete("acc", ids: [id]) }
        _ = try store.journal.writeCompactCopy(to: compacted)
        try store.journal.close()
        return [
            Kind(encrypted: encrypted, compacted: false): url, Kind(encrypted: encrypted, compacted: true): compacted,
        ]
    }

    private func options(encrypted: Bool) throws -> JournalOptions {
        var options = JournalOptions()
        options.encryption = encrypted ? try StoreKey(hex: Self.keyHex) : nil
        options.checkpoints.entryCountMax = 10
        // Every checkpoint stays, so that damage reaches several (a store that bounds its
        // history keeps only its newest before its first compaction).
        options.retention = .unlimited
        return options
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

    private func recover(_ store: URL, encrypted: Bool) async throws -> BuiltProduct.Output {
        try await replay.run(
            ["recover", store.path], environment: environment(encrypted: encrypted), timeLimit: Self.timeLimit)
    }

    /// The projections' data file and every checkpoint's copy of it.
    private func derivedFiles(of store: URL) throws -> [String] {
        let checkpoints = store.appendingPathComponent("checkpoints")
        let names = try FileManager.default.contentsOfDirectory(atPath: checkpoints.path).sorted()
        return ["projections/data.mdb"]
            + names.filter { Int($0) != nil }.map { "checkpoints/\($0)/data.mdb" }
    }

    @Test(arguments: 0..<laneCount)
    func seededDamageNeverKillsACommandNorAnswersWrongAndEndsVerifiedOrRefusedWithItsSalvage(
        lane: Int
    ) async throws {
        defer { directory.remove() }
        var pristine: [Kind: Pristine] = [:]
        let stores = try makeStores(encrypted: false).merging(try makeStores(encrypted: true)) { old, _ in old }
        for kind in Kind.all {
            let url = try #require(stores[kind])
            let answeredQuery = try await query(url, encrypted: kind.encrypted)
            let answeredState = try await state(url, encrypted: kind.encrypted)
            #expect(answeredQuery.status == 0 && answeredState.status == 0, "\(kind): \(answeredState.standardError)")
            let files = try derivedFiles(of: url)
            #expect(files.count >= 3, "the pristine \(kind) store has checkpoints: \(files)")
            pristine[kind] = Pristine(
                url: url, answers: Answers(query: answeredQuery.standardOutput, state: answeredState.standardOutput),
                derivedFiles: files)
        }
        #expect(
            pristine[Kind(encrypted: false, compacted: false)]?.answers.query
                == pristine[Kind(encrypted: false, compacted: true)]?.answers.query)
        var tally = Tally()
        for number in stride(from: lane, to: Self.caseCount, by: Self.laneCount) {
            var generator = SplitMix64(seed: 20_261_126 &+ UInt64(number))
            let kind = Kind.all[Int.random(in: 0..<Kind.all.count, using: &generator)]
            guard let source = pristine[kind] else { continue }
            // A third of the cases damage the journal, the rest a derived file.
            let file =
                Int.random(in: 0..<3, using: &generator) == 0
                ? Self.journalFile
                : source.derivedFiles[Int.random(in: 0..<source.derivedFiles.count, using: &generator)]
            let store = directory.appending("case-\(number)")
            try FileManager.default.copyItem(at: source.url, to: store)
            let target = store.appendingPathComponent(file)
            var bytes = try Data(contentsOf: target)
            let damage = Damage.random(fileSize: bytes.count, using: &generator)
            damage.apply(to: &bytes)
            try bytes.write(to: target)
            let label = "case \(number) (\(kind), \(file) \(damage))"
            let outcome = try await check(
                store, label: label, kind: kind, journalDamaged: file == Self.journalFile, expected: source.answers,
                tally: &tally)
            tally.cases += 1
            tally.outcomes[outcome.rawValue, default: 0] += 1
            let fileKind =
                file == Self.journalFile ? "journal" : file.hasPrefix("projections") ? "projections" : "checkpoint"
            tally.damaged["\(fileKind) \(damage.kind)", default: 0] += 1
            try? FileManager.default.removeItem(at: store)
        }
        #expect(tally.cases == Self.caseCount / Self.laneCount)
        print("seeded damage, lane \(lane): \(tally.summary)")
        let total = Self.campaign.withLock { campaign -> Tally? in
            campaign.lanesEnded += 1
            campaign.tally.add(tally)
            return campaign.lanesEnded == Self.laneCount ? campaign.tally : nil
        }
        if let total { print("seeded damage, all lanes: \(total.summary)") }
    }

    /// Whether a line of standard error is a progress line (`verifying: 40% (12/31)`), not a
    /// message.
    private static func isProgress(_ line: Substring) -> Bool {
        line.contains("% (") && line.hasSuffix(")")
    }

    /// Runs the query, the state as of ``asOf`` and `verify` on a damaged store, each again when
    /// it failed. A command never dies by a signal, never answers with other data, and fails only
    /// with a status and one line. A store whose derived file was damaged ends verified,
    /// answering as before; one whose journal was damaged ends so too, or refused by every command
    /// with a typed error naming the journal's file and `journal-replay recover`, which then
    /// salvages a plaintext store.
    private func check(
        _ store: URL, label: String, kind: Kind, journalDamaged: Bool, expected: Answers, tally: inout Tally
    ) async throws -> Outcome {
        var broken = false
        var failed = false
        var refusals = 0
        func fail(_ comment: Comment) {
            broken = true
            Issue.record(comment)
        }
        /// Whether `output` answered as before; records what is forbidden.
        func judge(_ output: BuiltProduct.Output, _ command: String, expecting answer: String?) -> Bool {
            tally.record(output, of: command)
            if output.timedOut {
                fail("\(label): \(command) hung")
                return false
            }
            if output.wasKilled {
                fail("\(label): \(command) died by signal \(output.status)")
                return false
            }
            if output.status == 0 {
                if let answer, output.standardOutput != answer {
                    tally.changedAnswers += 1
                    fail("\(label): \(command) answered with changed data")
                    return false
                }
                return true
            }
            // A damaged read is one line and status 3; verify reports damage with status 1.
            if ![1, 3].contains(output.status) { fail("\(label): \(command) status \(output.status)") }
            let lines = output.standardError.split(separator: "\n").filter { !Self.isProgress($0) }
            if lines.count > 1 { fail("\(label): \(command): \(output.standardError)") }
            // verify prints what it found on standard output.
            let said = output.standardError + output.standardOutput
            if journalDamaged, said.contains(Self.journalFile), said.contains("journal-replay recover") {
                refusals += 1
            }
            return false
        }
        let encrypted = kind.encrypted
        let commands: [(String, () async throws -> BuiltProduct.Output, String?)] = [
            ("query", { try await query(store, encrypted: encrypted) }, expected.query),
            ("state --as-of", { try await state(store, encrypted: encrypted) }, expected.state),
            ("verify", { try await verify(store, encrypted: encrypted) }, nil),
        ]
        for (name, run, answer) in commands {
            let refusalsBefore = refusals
            if judge(try await run(), name, expecting: answer) { continue }
            failed = true
            let second = try await run()
            if judge(second, name, expecting: answer) { continue }
            // Only a refused journal may fail twice: nothing can rebuild it.
            if refusals != refusalsBefore + 2, !broken {
                fail(
                    "\(label): \(name) again: status \(second.status) \(second.standardOutput) \(second.standardError)")
            }
        }
        if broken { return .broken }
        if refusals > 0 {
            // A store refused for its journal: salvaged by `recover` when plaintext.
            if !encrypted {
                let recovered = try await recover(store, encrypted: encrypted)
                tally.record(recovered, of: "recover")
                let verified = try await verify(store, encrypted: encrypted)
                tally.record(verified, of: "verify after recover")
                let answered = try await query(store, encrypted: encrypted)
                tally.record(answered, of: "query after recover")
                #expect(recovered.status == 0, "\(label): recover: \(recovered.standardError)")
                #expect(verified.status == 0, "\(label): verify after recover: \(verified.standardError)")
                #expect(
                    answered.status == 0 && answered.standardOutput == expected.query, "\(label): the salvaged store")
                if recovered.status == 0, verified.status == 0, answered.standardOutput == expected.query {
                    tally.salvaged += 1
                }
            }
            return .refused
        }
        let last = try await query(store, encrypted: encrypted)
        tally.record(last, of: "query at the end")
        guard last.status == 0, last.standardOutput == expected.query else {
            fail("\(label): the healed store: status \(last.status) \(last.standardError)")
            return .broken
        }
        return failed ? .healed : .unchanged
    }
}
