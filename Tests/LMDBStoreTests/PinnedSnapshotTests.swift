import Determinism
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// A pinned, synced snapshot (decision 0014) is what a power loss cannot take: whatever
/// happened to the pages written after it, writing its meta page back opens exactly it.
@Suite(.enabled(if: DataFileHeader.checksLinkedLibrary)) struct PinnedSnapshotTests {
    /// What one run leaves: the disk as the sync left it, the file after later unsynced
    /// commits, the snapshot's meta page and its contents.
    private struct Run {
        var synced: [UInt8]
        var later: [UInt8]
        var meta: SnapshotMeta
        var contents: [[UInt8]: [UInt8]]
    }

    private static func options() -> EnvironmentOptions {
        var options = EnvironmentOptions()
        options.flushesOnCommit = false
        // Small, so that the later commits grow the map while the pin lives.
        options.mapSizeBytes = 1 << 20
        return options
    }

    /// Commits `count` transactions of random puts (some on overflow pages) and deletes.
    private static func churn(
        _ environment: Environment, _ database: Database, transactions count: Int, _ random: inout SplitMix64
    ) throws {
        for _ in 0..<count {
            let operations = Int.random(in: 5...40, using: &random)
            let plan = (0..<operations).map { _ in
                (
                    key: Int.random(in: 0..<300, using: &random),
                    size: Int.random(in: 0..<10, using: &random) == 0
                        ? Int.random(in: 5_000...12_000, using: &random) : Int.random(in: 20...600, using: &random),
                    delete: Int.random(in: 0..<4, using: &random) == 0, fill: UInt8.random(in: 0...255, using: &random)
                )
            }
            try environment.write { transaction in
                for step in plan {
                    let key = Array("key-\(step.key)".utf8)
                    if step.delete {
                        _ = try transaction.delete(database, key: key)
                    } else {
                        try transaction.put(database, key: key, value: [UInt8](repeating: step.fill, count: step.size))
                    }
                }
            }
        }
    }

    private static func contents(_ environment: Environment, _ database: Database) throws -> [[UInt8]: [UInt8]] {
        try environment.read { transaction in
            var all: [[UInt8]: [UInt8]] = [:]
            try transaction.withCursor(database) { cursor in
                try cursor.forEach { key, value in
                    all[key] = value
                    return true
                }
            }
            return all
        }
    }

    /// Writes, pins, writes more; the pin is released before the later file is read when
    /// `keepsPin` is false.
    private static func run(in directory: URL, seed: UInt64, keepsPin: Bool) throws -> Run {
        var random = SplitMix64(seed: seed)
        let environment = try Environment(directory: directory, options: options())
        let database = try environment.database(named: "values")
        let file = directory.appendingPathComponent("data.mdb")
        try churn(environment, database, transactions: 30, &random)
        let pin = try environment.pinSyncedSnapshot()
        let contents = try contents(environment, database)
        let synced = Array(try Data(contentsOf: file))
        if !keepsPin { pin.release() }
        try churn(environment, database, transactions: 60, &random)
        if keepsPin {
            // The pin is a reader slot, not a lock: the map grows, and is remapped, around it.
            #expect(environment.mapSizeBytes > options().mapSizeBytes, "the later commits grew the map")
        }
        let later = Array(try Data(contentsOf: file))
        pin.release()
        return Run(synced: synced, later: later, meta: pin.meta, contents: contents)
    }

    /// The pages numbered 2 and up that differ between the two files (or exist in one only).
    private static func changedPages(_ run: Run) -> [Int] {
        let pageSize = run.meta.pageSizeBytes
        let pages = max(run.synced.count, run.later.count) / pageSize
        return (2..<pages).filter { page in
            let range = page * pageSize..<(page + 1) * pageSize
            guard range.upperBound <= run.synced.count, range.upperBound <= run.later.count else { return true }
            return run.synced[range] != run.later[range]
        }
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func aPowerLossThatTornEveryLaterPageReopensThePinnedSnapshotExactly(seed: UInt64) throws {
        let directory = try TemporaryDirectory("pinned")
        defer { directory.remove() }
        let store = directory.appending("store")
        let run = try Self.run(in: store, seed: seed, keepsPin: true)
        #expect(!Self.changedPages(run).isEmpty, "the later commits wrote pages")
        // The disk after the power loss: each page written after the sync reached it whole,
        // not at all, or as zeros; the file keeps the length of one of the two.
        var random = SplitMix64(seed: seed &* 7_919)
        let pageSize = run.meta.pageSizeBytes
        var disk = Bool.random(using: &random) ? run.later : run.synced
        for page in Self.changedPages(run) where (page + 1) * pageSize <= disk.count {
            let range = page * pageSize..<(page + 1) * pageSize
            switch Int.random(in: 0..<3, using: &random) {
            case 0 where range.upperBound <= run.synced.count: disk.replaceSubrange(range, with: run.synced[range])
            case 1 where range.upperBound <= run.later.count: disk.replaceSubrange(range, with: run.later[range])
            default: disk.replaceSubrange(range, with: repeatElement(0, count: pageSize))
            }
        }
        let file = store.appendingPathComponent("data.mdb")
        try Data(disk).write(to: file)
        try run.meta.restore(into: file)

        let reopened = try Environment(directory: store, options: Self.options())
        let database = try reopened.database(named: "values")
        #expect(try Self.contents(reopened, database) == run.contents)
        // A compact copy walks every page of every tree: none is damaged.
        let copy = directory.appending("copy")
        try reopened.copy(to: copy, compact: true)
        let copied = try Environment(directory: copy, options: Self.options())
        #expect(try Self.contents(copied, try copied.database(named: "values")) == run.contents)
        // The restored free pages are sound: the store takes new commits and keeps them.
        var more = SplitMix64(seed: seed &+ 1)
        try Self.churn(reopened, database, transactions: 20, &more)
        let after = try Self.contents(reopened, database)
        try reopened.copy(to: directory.appending("copy-after"), compact: true)
        let copiedAfter = try Environment(directory: directory.appending("copy-after"), options: Self.options())
        #expect(try Self.contents(copiedAfter, try copiedAfter.database(named: "values")) == after)
    }

    @Test func noPageOfThePinnedSnapshotIsWrittenAfterItButWithoutThePinSomeAre() throws {
        let directory = try TemporaryDirectory("pinned-pages")
        defer { directory.remove() }
        for keepsPin in [true, false] {
            let store = directory.appending("store-\(keepsPin)")
            let run = try Self.run(in: store, seed: 42, keepsPin: keepsPin)
            let syncedFile = directory.appending("synced-\(keepsPin).mdb")
            try Data(run.synced).write(to: syncedFile)
            let free = try DataFileHeader.freePages(of: syncedFile)
            let inUseAndChanged = Self.changedPages(run).filter {
                UInt64($0) <= run.meta.lastPage && !free.contains(UInt64($0))
            }
            if keepsPin {
                #expect(inUseAndChanged.isEmpty, "pages of the pinned snapshot were overwritten: \(inUseAndChanged)")
            } else {
                #expect(!inUseAndChanged.isEmpty, "without the pin, LMDB reuses the snapshot's pages")
            }
        }
    }

    /// A pin keeps every page freed after it listed, so the free-page database outgrows one
    /// page and gets a branch root, whose first node has no key and may end the page.
    @Test func aFreePageDatabaseWithABranchRootIsReadWhole() throws {
        let directory = try TemporaryDirectory("pinned-free-branch")
        defer { directory.remove() }
        let environment = try Environment(directory: directory.appending("store"), options: Self.options())
        let database = try environment.database(named: "values")
        var random = SplitMix64(seed: 7)
        try Self.churn(environment, database, transactions: 20, &random)
        let pin = try environment.pinSyncedSnapshot()
        try Self.churn(environment, database, transactions: 400, &random)
        try environment.flush()
        let file = directory.appending("store").appendingPathComponent("data.mdb")
        let free = try DataFileHeader.freePages(of: file)
        let pinnedFree = try DataFileHeader.freePages(of: pin.meta, in: file)
        #expect(free.count > 400, "the free-page database stayed small: \(free.count) pages")
        #expect(!pinnedFree.isEmpty)
        pin.release()
    }

    @Test func aMetaPageOfAnotherLayoutOrTooShortAFileIsRefused() throws {
        #expect(SnapshotMeta(bytes: [UInt8](repeating: 0, count: 152)) == nil)
        #expect(SnapshotMeta(bytes: []) == nil)
        let directory = try TemporaryDirectory("pinned-short")
        defer { directory.remove() }
        let run = try Self.run(in: directory.appending("store"), seed: 3, keepsPin: true)
        #expect(SnapshotMeta(bytes: run.meta.bytes) == run.meta)
        let file = directory.appending("short.mdb")
        try Data(run.synced.prefix(Int(run.meta.lastPage) * run.meta.pageSizeBytes)).write(to: file)
        #expect(throws: DataFileDamage.self) { try run.meta.restore(into: file) }
    }
}
