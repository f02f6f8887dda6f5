import Foundation
import LMDBStore
import SyncTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Some damaged pages make LMDB fault instead of failing an assertion or returning an error. A
/// process that meets one in an environment that notes damage still leaves the note, so the
/// next open rebuilds instead of faulting again; a fault the store did not cause is left to the
/// handler installed before, untouched (decision 0013).
@Suite struct DamageFaultTests {
    /// How the first record of the database's only leaf page is damaged.
    enum Damage: String, CaseIterable, CustomStringConvertible {
        /// Flagged as holding a sub-database of sorted duplicates, in a database without them:
        /// LMDB follows a null pointer in its own code (SIGSEGV far from the map).
        case duplicatesFlagOnAPlainRecord
        /// Its offset set 65,520 bytes into the page: past the end of the file but inside the
        /// map (SIGBUS at an address in the map, in `memcmp`, not in LMDB's code).
        case recordOffsetPastTheFileEnd

        var description: String { rawValue }

        var signal: Int32 {
            switch self {
            case .duplicatesFlagOnAPlainRecord: SIGSEGV
            case .recordOffsetPastTheFileEnd: SIGBUS
            }
        }

        /// How the note names the signal.
        var signalName: String { signal == SIGSEGV ? "SIGSEGV" : "SIGBUS" }
    }

    static let pageSize = 4_096
    static let database = "records"

    /// An environment of 20 small records, which fit one leaf page.
    static func makeStore(at store: URL) throws {
        let environment = try Environment(directory: store)
        let database = try environment.database(named: Self.database)
        try environment.write { transaction in
            for index in 0..<20 {
                let key = Array("key\(100 + index)".utf8)
                try transaction.put(database, key: key, value: Array("value \(index)".utf8))
            }
        }
    }

    static func damage(_ damage: Damage, in store: URL) throws {
        let file = store.appendingPathComponent("data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        // The leaf whose first record is the first key: page header (16 bytes), then the
        // records' offsets; a leaf record has 8 bytes of header before its key.
        let leaf = try #require(
            stride(from: 2 * pageSize, to: bytes.count, by: pageSize).first { page in
                guard bytes[page + 10] & 0x02 != 0 else { return false }
                let record = page + Int(bytes[page + 16]) | Int(bytes[page + 17]) << 8
                return record + 14 <= page + pageSize && Array(bytes[record + 8..<record + 14]) == Array("key100".utf8)
            })
        let record = leaf + (Int(bytes[leaf + 16]) | Int(bytes[leaf + 17]) << 8)
        switch damage {
        case .duplicatesFlagOnAPlainRecord: bytes[record + 4] |= 0x04
        case .recordOffsetPastTheFileEnd: (bytes[leaf + 16], bytes[leaf + 17]) = (0xF0, 0xFF)
        }
        try Data(bytes).write(to: file)
    }

    /// A fresh store in a temporary directory, damaged as `damage` says (none when `nil`).
    static func damagedStore(_ damage: Damage?) throws -> (TemporaryDirectory, URL) {
        let directory = try TemporaryDirectory("damage-fault")
        let store = directory.appending("store")
        try makeStore(at: store)
        if let damage { try Self.damage(damage, in: store) }
        return (directory, store)
    }

    static func reader(_ store: URL, _ extra: [String] = []) async throws -> BuiltProduct.Output {
        try await BuiltProduct("lmdb-damage-reader").run(
            [store.path, database] + extra, timeLimit: .seconds(60))
    }

    @Test func anUndamagedStoreIsReadWholeAndLeavesNoNote() async throws {
        let (directory, store) = try Self.damagedStore(nil)
        defer { directory.remove() }
        let output = try await Self.reader(store)
        #expect(!output.wasKilled && output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput == "read 20\n")
        #expect(DamageNote.read(in: store) == nil)
    }

    @Test(arguments: Damage.allCases)
    func aFaultOnADamagedPageLeavesANoteAndStillEndsTheProcessByItsSignal(damage: Damage) async throws {
        let (directory, store) = try Self.damagedStore(damage)
        defer { directory.remove() }
        let output = try await Self.reader(store)
        #expect(output.wasKilled && output.status == damage.signal, "\(output.status): \(output.standardError)")
        let note = try #require(DamageNote.read(in: store))
        #expect(note.message.contains(damage.signalName))
    }

    @Test(arguments: Damage.allCases)
    func aToolThatAskedForAnExitStatusEndsWithItAndOneLineAfterTheNote(damage: Damage) async throws {
        let (directory, store) = try Self.damagedStore(damage)
        defer { directory.remove() }
        let output = try await Self.reader(store, ["7"])
        #expect(!output.wasKilled && output.status == 7, "\(output.status): \(output.standardError)")
        #expect(output.standardError.hasPrefix("lmdb-damage-reader: the store's projections are damaged"))
        #expect(output.standardError.split(separator: "\n").count == 1)
        #expect(DamageNote.read(in: store) != nil)
    }

    @Test func aFaultOutsideAnyTransactionIsNotBlamedOnTheStore() async throws {
        let (directory, store) = try Self.damagedStore(nil)
        defer { directory.remove() }
        let output = try await Self.reader(store, ["stray"])
        #expect(output.wasKilled && output.status == SIGSEGV, "\(output.status): \(output.standardError)")
        #expect(DamageNote.read(in: store) == nil)
    }
}
