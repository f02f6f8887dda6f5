import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import Soups
import SyncTesting
import Testing

/// `hashed` indexes (decision 0006): exact matches through a keyed digest, nothing else, and
/// the values never in the store's files.
@Suite struct HashedIndexTests {
    static let key = try! StoreKey(bytes: [UInt8](repeating: 0x42, count: StoreKey.byteCount))
    static let specs = [IndexSpec(path: "Email", type: .hashed), IndexSpec(path: "Name", type: .string)]

    static func contact(_ n: Int) -> JSONValue {
        ["Name": .string("Contact \(n)"), "Email": .string("person\(n)@secret-domain.example")]
    }

    static func encryptedFixture() throws -> SoupFixture {
        let fixture = try SoupFixture("hashed", encryption: key)
        try fixture.store.registerSoup("contacts", indexSpecs: specs)
        try fixture.store.create("contacts", (1...20).map(contact))
        return fixture
    }

    @Test func anExactQueryOnAHashedIndexFindsTheRecordsWithThatValue() throws {
        let fixture = try Self.encryptedFixture()
        defer { fixture.directory.remove() }
        let found = try fixture.store.query(
            .exact("contacts", path: "Email", value: .string("person7@secret-domain.example")))
        #expect(found.map { $0["Name"] } == [.string("Contact 7")])
        #expect(try fixture.store.query(.exact("contacts", path: "Email", value: .string("nobody@x.example"))) == [])
        _ = try fixture.store.update(
            "contacts", ["Name": "Contact 7", "Email": "moved@secret-domain.example"], entryId: 7)
        let moved = try fixture.store.query(
            .exact("contacts", path: "Email", value: .string("moved@secret-domain.example")))
        #expect(moved.count == 1)
        #expect(
            try fixture.store.query(.exact("contacts", path: "Email", value: .string("person7@secret-domain.example")))
                == [])
        #expect(try fixture.rebuildMatches())
    }

    /// A rebuild long enough to decode ahead on a second thread: that thread computes the index
    /// keys of saved records, but not a hashed index's digest, which needs the store's key.
    @Test func aRebuildDecodingAheadDigestsAHashedIndexAsTheAppendDid() throws {
        let fixture = try SoupFixture("hashed-decode-ahead", encryption: Self.key, rebuildBatchSize: 70)
        defer { fixture.directory.remove() }
        try fixture.store.registerSoup("contacts", indexSpecs: Self.specs)
        for n in 1...100 { try fixture.store.create("contacts", Self.contact(n)) }
        #expect(try fixture.rebuildMatches())
        let found = try fixture.store.query(
            .exact("contacts", path: "Email", value: .string("person70@secret-domain.example")))
        #expect(found.map { $0["Name"] } == [.string("Contact 70")])
    }

    @Test func rangesLikesAndOrderingOnAHashedIndexAreRefused() throws {
        let fixture = try Self.encryptedFixture()
        defer { fixture.directory.remove() }
        let refused: [QuerySpec] = [
            .range("contacts", path: "Email", from: .string("a"), to: .string("z")),
            .like("contacts", path: "Email", pattern: "person1%"),
            .all("contacts", orderPath: "Email"),
        ]
        for spec in refused {
            let error = try #require(throws: SoupError.self) { try fixture.store.query(spec) }
            #expect(error.code == .invalidQuery)
            #expect(error.message.contains("hashed"))
        }
    }

    @Test func theStoresFilesHoldNeitherTheHashedValuesNorAnyOtherRecordText() throws {
        let fixture = try Self.encryptedFixture()
        defer { fixture.directory.remove() }
        try fixture.journal.close()
        let needle = Data("secret-domain".utf8)
        let walker = FileManager.default.enumerator(at: fixture.directory.url, includingPropertiesForKeys: nil)
        let holding = (walker?.allObjects as? [URL] ?? []).filter {
            FileManager.default.contents(atPath: $0.path)?.range(of: needle) != nil
        }
        #expect(holding == [])
    }

    /// Index entries have empty values, sealed as a MAC of their key: an entry forged by copying
    /// another's bytes under a new key is refused, not returned as a match.
    @Test func aForgedIndexEntryOfAnEncryptedStoreIsATamperedErrorNotAMatch() throws {
        let fixture = try Self.encryptedFixture()
        defer { fixture.directory.remove() }
        try fixture.journal.close()
        let projections = fixture.directory.appending("store/projections")
        do {
            let environment = try Environment(directory: projections)
            let index = try environment.database(named: "soups.index")
            try environment.write { transaction in
                let (key, value) = try #require(try transaction.withCursor(index) { try $0.last() })
                var forged = key
                forged[forged.count - 1] ^= 0x01
                try transaction.put(index, key: forged, value: value)
            }
        }
        let reopened = try SoupFixture.reopen(fixture, encryption: Self.key)
        // The soup store reports it as its own storage error, with the journal's as the cause.
        let error = try #require(throws: SoupError.self) {
            try reopened.store.query(.all("contacts", orderPath: "Name", pageSize: 100))
        }
        #expect(error.code == .storage)
        #expect((error.cause as? JournalError)?.code == .tampered)
        #expect(error.message.contains("soups.index"))
    }

    @Test func aHashedIndexOnAPlaintextStoreIsRefusedAtRegistration() throws {
        let fixture = try SoupFixture("hashed-plain")
        defer { fixture.directory.remove() }
        let error = try #require(throws: SoupError.self) {
            try fixture.store.registerSoup("contacts", indexSpecs: Self.specs)
        }
        #expect(error.code == .invalidIndexSpec)
        #expect(error.message.contains("encrypted"))
    }
}
