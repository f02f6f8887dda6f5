import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// Re-keying an encrypted store (decision 0006): everything sealed again, only the new key
/// opens it, and a SIGKILL at any moment leaves a store exactly one key opens.
@Suite struct KeyRotationTests {
    typealias Support = EncryptionTests

    /// The generations of every sealed value in the environment at `directory`, read raw.
    static func generations(in directory: URL) throws -> Set<UInt8> {
        let environment = try Environment(directory: directory)
        var generations: Set<UInt8> = []
        let names = try environment.read { try $0.databaseNames() }.filter { $0 != "journal.keys" }
        for name in names {
            let database = try environment.database(named: name)
            try environment.read { transaction in
                try transaction.withCursor(database) { cursor in
                    try cursor.forEach { _, value in
                        generations.insert(value.first ?? 0)
                        return true
                    }
                }
            }
        }
        return generations
    }

    @Test func rotatingTheKeySealsEverythingAgainAndOnlyTheNewKeyOpensTheStore() throws {
        let fixture = try JournalFixture("rotate")
        defer { fixture.directory.remove() }
        try Support.fill(fixture, key: Support.keyA, count: 45)
        let store = fixture.directory.appending("store")
        #expect(try Self.generations(in: store.appendingPathComponent("journal")) == [1])

        let report = try Journal.rotateKey(directory: store, from: Support.keyA, to: Support.keyB, batchSize: 7)
        #expect(!report.resumed)
        #expect(report.checkpointsResealed == 4)
        #expect(report.valuesResealed > 45)
        #expect(try Self.generations(in: store.appendingPathComponent("journal")) == [2])
        #expect(try Self.generations(in: store.appendingPathComponent("projections")) == [2])
        for sequence in [10, 20, 30, 40] {
            let checkpoint = store.appendingPathComponent("checkpoints/\(sequence)")
            let files = try FileManager.default.contentsOfDirectory(atPath: checkpoint.path).sorted()
            #expect(files == ["checkpoint.json", "data-resealed.mdb"])
        }
        #expect(Support.files(under: store, holding: Support.marker) == [])

        #expect(Support.failure { try fixture.open(options: Support.options(Support.keyA)) } == .wrongKey)
        let journal = try fixture.open(options: Support.options(Support.keyB))
        #expect(try journal.entry(at: 45)?.header["owner"] == .string("\(Support.marker)-header-45"))
        let asOf15 = try journal.withState(asOf: 15) { state, _ in try KindCountsProjection.counts(in: state) }
        #expect(asOf15 == ["note.added": 15])
        #expect(try journal.verify().isConsistent)
    }

    @Test func rotatingAgainWithTheSameKeysFinishesAnInterruptedRotationAndLosesNothing() throws {
        let fixture = try JournalFixture("rotate-twice")
        defer { fixture.directory.remove() }
        try Support.fill(fixture, key: Support.keyA, count: 12)
        let store = fixture.directory.appending("store")
        try Journal.rotateKey(directory: store, from: Support.keyA, to: Support.keyB)
        let again = try Journal.rotateKey(directory: store, from: Support.keyA, to: Support.keyB)
        #expect(again.resumed)
        let back = try Journal.rotateKey(directory: store, from: Support.keyB, to: Support.keyA)
        #expect(!back.resumed)
        #expect(try Self.generations(in: store.appendingPathComponent("journal")) == [3])
        let journal = try fixture.open(options: Support.options(Support.keyA))
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 12])
    }

    /// A process being spawned holds copies of its parent's descriptors until it runs its
    /// program. The lock of a journal closed just then must not outlive the journal in those
    /// copies, or a rotation right after the store's last user went finds the store in use
    /// (decision 0023). The copies are held here until the rotation ends, where a real child's
    /// would go at its exec: the test needs no timing.
    @Test func aRotationRightAfterTheLastJournalClosedIgnoresCopiesOfItsLockInASpawnedChild() throws {
        let fixture = try JournalFixture("rotate-lock-copies")
        defer { fixture.directory.remove() }
        try Support.fill(fixture, key: Support.keyA, count: 3)
        let store = fixture.directory.appending("store")
        var journal: Journal? = try fixture.open(options: Support.options(Support.keyA))
        let copies = try SpawnedChildCopies(of: store.appendingPathComponent("store.lock"))
        #expect(copies.descriptors.count == 1, "the open journal holds the store's lock")
        #expect(
            Support.failure { try Journal.rotateKey(directory: store, from: Support.keyA, to: Support.keyB) }
                == .storeInUse)
        try journal?.close()
        journal = nil

        let report = try withExtendedLifetime(copies) {
            try Journal.rotateKey(directory: store, from: Support.keyA, to: Support.keyB)
        }
        #expect(!report.resumed)
        #expect(try fixture.open(options: Support.options(Support.keyB)).entry(at: 3) != nil)
    }

    @Test func rotationIsRefusedWhileTheStoreIsOpenAndForAPlaintextStoreOrAWrongKey() throws {
        let fixture = try JournalFixture("rotate-refused")
        defer { fixture.directory.remove() }
        try Support.fill(fixture, key: Support.keyA, count: 3)
        let store = fixture.directory.appending("store")
        do {
            let open = try fixture.open(options: Support.options(Support.keyA))
            #expect(
                Support.failure { try Journal.rotateKey(directory: store, from: Support.keyA, to: Support.keyB) }
                    == .storeInUse)
            _ = open
        }
        let keyC = try StoreKey(bytes: [UInt8](repeating: 0xC3, count: 32))
        #expect(Support.failure { try Journal.rotateKey(directory: store, from: keyC, to: Support.keyB) } == .wrongKey)

        let plain = try JournalFixture("rotate-plain")
        defer { plain.directory.remove() }
        try Support.fill(plain, key: nil, count: 3)
        #expect(
            Support.failure {
                try Journal.rotateKey(
                    directory: plain.directory.appending("store"), from: Support.keyA, to: Support.keyB)
            } == .notEncrypted)
    }

    /// A child rotates the store between two keys in a loop and kills itself at seeded commits
    /// of its journal (each commit seals one batch again); after every crash exactly one of the
    /// keys opens the store, which holds every entry.
    @Test func aCrashAtAnyCommitOfARotationLeavesAStoreExactlyOneKeyOpensWithNothingLost() async throws {
        let fixture = try JournalFixture("rotate-crash")
        defer { fixture.directory.remove() }
        let entryCount = 1_500
        do {
            let journal = try fixture.open(options: Support.options(Support.keyA, checkpointEvery: 300))
            try journal.write { writer in
                for n in 1...entryCount { try writer.append(Support.secret(n)) }
            }
            try journal.close()
        }
        let store = fixture.directory.appending("store")
        let writer = try BuiltProduct("journal-crash-writer")
        let hexA = String(repeating: "a1", count: 32)
        let hexB = String(repeating: "b2", count: 32)
        var generator = SplitMix64(seed: 20_261_124)
        var opensWith: [String: Int] = [:]
        var killsMidRotation = 0
        for round in 0..<16 {
            let point = CrashPoint(
                folderName: "journal", commit: Int.random(in: 1...60, using: &generator),
                moment: Bool.random(using: &generator) ? .afterCommit : .beforeCommit)
            let child = try writer.start(["rotate", store.path, hexA, hexB], addedEnvironment: point.environment)
            #expect(try await child.crashedAtItsPoint(), "round \(round) (\(point)): the child did not crash")
            let mixed = try Self.generations(in: store.appendingPathComponent("journal")).count > 1
            if mixed { killsMidRotation += 1 }

            let withA = Support.failure { try Self.check(fixture, key: Support.keyA, entryCount: entryCount) }
            let withB = Support.failure { try Self.check(fixture, key: Support.keyB, entryCount: entryCount) }
            let outcomes = [withA, withB]
            #expect(
                outcomes.filter { $0 == nil }.count == 1,
                "round \(round): A \(String(describing: withA)), B \(String(describing: withB))")
            #expect(outcomes.contains(.wrongKey), "round \(round)")
            opensWith[withA == nil ? "A" : "B", default: 0] += 1
        }
        #expect(opensWith.count == 2, "every crash left the store under one key: \(opensWith)")
        #expect(killsMidRotation >= 2, "too few crashes landed while values were being sealed again")
    }

    /// Opens the store with `key` and checks every entry, the projections and a state folded
    /// from a checkpoint; throws what opening throws.
    static func check(_ fixture: JournalFixture, key: StoreKey, entryCount: Int) throws {
        let journal = try fixture.open(options: Support.options(key, checkpointEvery: 300))
        #expect(try journal.lastSequence() == UInt64(entryCount))
        let entries = try journal.entries(in: 1...UInt64(entryCount))
        #expect(
            entries.enumerated().allSatisfy { index, entry in
                entry.header["owner"] == .string("\(Support.marker)-header-\(index + 1)")
            })
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": UInt64(entryCount)])
        let asOf = try journal.withState(asOf: 700) { state, _ in try KindCountsProjection.counts(in: state) }
        #expect(asOf == ["note.added": 700])
        #expect(try journal.verify().isConsistent)
    }
}
