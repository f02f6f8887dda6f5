import EventJournal
import LMDBStore
import LosslessJSON
import Soups
import Testing

@Suite struct SoupLocalChangeTests {
    let specs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "__local__", type: .string)]

    private func flags(_ record: JSONValue) -> [JSONValue?] {
        ["__local__", "__locally_created__", "__locally_updated__", "__locally_deleted__"].map { record[$0] }
    }

    @Test func localChangesSetTheFlagsAsMobileSyncReadsThem() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        let store = fixture.store
        try store.registerSoup("accounts", indexSpecs: specs)
        let created = try store.createLocally("accounts", ["Name": "Acme"])
        // Mobile Sync's isLocalId: the `local_` prefix; the number comes from the injected generator.
        #expect(created["Id"] == "local_1")
        #expect(flags(created) == [true, true, false, false])
        let kept = try store.createLocally("accounts", ["Id": "001", "Name": "Bolt"])
        #expect(kept["Id"] == "001")

        let updated = try store.updateLocally("accounts", entryId: created.entryId!, changes: ["Name": "Acme 2"])
        #expect(updated["Name"] == "Acme 2")
        #expect(flags(updated) == [true, true, true, false])
        let deleted = try store.deleteLocally("accounts", entryId: created.entryId!)
        #expect(flags(deleted) == [true, true, true, true])
        #expect(try store.retrieve("accounts", ids: [created.entryId!]) == [deleted])

        // A record from the server (no flags) updated locally gets every flag as a boolean.
        let server = try store.create("accounts", ["Id": "002", "__local__": false])
        let edited = try store.updateLocally("accounts", entryId: server.entryId!, changes: [:])
        #expect(flags(edited) == [true, false, true, false])
        // Sync down's dirty query: `{soup:__local__} = 'true'` on the string index.
        #expect(try store.count(.exact("accounts", path: "__local__", value: "true")) == 3)
        #expect(try store.count(.exact("accounts", path: "__local__", value: "false")) == 0)
    }

    @Test func theDirtySetHoldsOnlyDirtyRecordsAndFollowsCleaning() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        let store = fixture.store
        try store.registerSoup("accounts", indexSpecs: specs)
        try store.create("accounts", (0..<500).map { ["Id": .string("c\($0)"), "__local__": false] })
        let dirty = [
            try store.createLocally("accounts", ["Name": "new"]),
            try store.updateLocally("accounts", entryId: 7, changes: ["Name": "x"]),
            try store.deleteLocally("accounts", entryId: 300),
        ]
        #expect(try store.dirtyRecords("accounts") == dirty.sorted { $0.entryId! < $1.entryId! })
        // O(dirty): the set's database holds one key per dirty record, whatever the soup's size.
        #expect(try dirtySetSize(fixture) == 3)

        // Cleaning, as sync up does after an upload: every flag false, __last_error__ null.
        guard case .object(var fields) = dirty[1] else { return }
        for flag in ["__local__", "__locally_created__", "__locally_updated__", "__locally_deleted__"] {
            fields[flag] = false
        }
        fields["__last_error__"] = nil
        try store.update("accounts", .object(fields), entryId: 7)
        try store.delete("accounts", ids: [dirty[2].entryId!])
        #expect(try store.dirtyRecords("accounts") == [dirty[0]])
        #expect(try dirtySetSize(fixture) == 1)
        try store.clearSoup("accounts")
        #expect(try store.dirtyRecords("accounts").isEmpty)
        #expect(try dirtySetSize(fixture) == 0)
        #expect(try fixture.rebuildMatches())
    }

    private func dirtySetSize(_ fixture: SoupFixture) throws -> Int {
        try fixture.journal.read { reader in
            try reader.transaction.entryCount(reader.database(named: "soups.dirty"))
        }
    }
}
