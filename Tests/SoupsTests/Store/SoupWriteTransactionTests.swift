import EventJournal
import LosslessJSON
import Soups
import SyncTesting
import Testing

/// `SoupStore.write(_:)`: writes across soups that commit together or not at all.
@Suite(.timeLimit(.minutes(5))) struct SoupWriteTransactionTests {
    struct Abort: Error, Equatable {}

    let specs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)]

    func fixture(_ label: String) throws -> SoupFixture {
        let fixture = try SoupFixture(label, flushesOnCommit: false)
        for soup in ["accounts", "orders", "lines"] { try fixture.store.registerSoup(soup, indexSpecs: specs) }
        return fixture
    }

    static func names(_ fixture: SoupFixture, _ soup: String) throws -> [String] {
        try fixture.store.query(.all(soup, orderPath: "Name", pageSize: 100)).compactMap { $0["Name"]?.string }
    }

    @Test func writesAcrossSoupsCommitTogetherAndSeeEachOther() throws {
        let fixture = try fixture("transaction-commit")
        defer { fixture.remove() }
        let acme = try fixture.store.create("accounts", ["Name": "Acme"])
        let gone = try fixture.store.create("accounts", ["Name": "Gone"])
        let sequence = try fixture.journal.lastSequence()
        let lines = try fixture.store.write { transaction in
            let order = try transaction.createLocally("orders", ["Name": "O-1"])
            let line = try transaction.create("lines", ["Name": "L-1", "Order": order["Id"] ?? .null])
            try transaction.updateLocally("lines", entryId: line.entryId ?? -1, changes: ["Qty": 2])
            try transaction.update("accounts", ["Name": "Acme Corp"], entryId: acme.entryId ?? -1)
            try transaction.delete("accounts", ids: [gone.entryId ?? -1])
            try transaction.upsert("orders", ["Name": "O-2", "Id": "o2"], externalIdPath: "Id")
            return try transaction.retrieve("lines", ids: [line.entryId ?? -1])
        }
        #expect(lines.first?["Qty"] == 2, "a write sees the ones before it in the transaction")
        #expect(try Self.names(fixture, "accounts") == ["Acme Corp"])
        #expect(try Self.names(fixture, "orders") == ["O-1", "O-2"])
        #expect(try fixture.store.dirtyRecords("lines").count == 1)
        #expect(try fixture.journal.lastSequence() == sequence + 6, "each write stays its own entry")
    }

    @Test func anErrorThrownByTheClosureUndoesEveryWrite() throws {
        let fixture = try fixture("transaction-abort")
        defer { fixture.remove() }
        try fixture.store.create("accounts", ["Name": "Acme"])
        let sequence = try fixture.journal.lastSequence()
        #expect(throws: Abort()) {
            try fixture.store.write { transaction in
                try transaction.create("orders", ["Name": "O-1"])
                try transaction.create("lines", ["Name": "L-1"])
                throw Abort()
            }
        }
        #expect(try Self.names(fixture, "orders").isEmpty)
        #expect(try Self.names(fixture, "lines").isEmpty)
        #expect(try fixture.journal.lastSequence() == sequence)
    }

    @Test func aFailingWriteUndoesTheWritesBeforeIt() throws {
        let fixture = try fixture("transaction-failing-write")
        defer { fixture.remove() }
        let error = #expect(throws: SoupError.self) {
            try fixture.store.write { transaction in
                try transaction.create("orders", ["Name": "O-1"])
                try transaction.update("accounts", ["Name": "x"], entryId: 999)
            }
        }
        #expect(error?.code == .unknownEntry)
        #expect(try Self.names(fixture, "orders").isEmpty)
    }

    @Test func aTransactionUsedAfterItsCallIsRefused() throws {
        let fixture = try fixture("transaction-escaped")
        defer { fixture.remove() }
        let escaped = try fixture.store.write { $0 }
        let error = #expect(throws: SoupError.self) { try escaped.create("orders", ["Name": "late"]) }
        #expect(error?.code == .transactionEnded)
        #expect(try Self.names(fixture, "orders").isEmpty)
    }

    @Test func observersAreWokenOnceForTheWholeTransaction() async throws {
        let fixture = try fixture("transaction-observed")
        defer { fixture.remove() }
        var pages = fixture.store.observeQuery(.all("lines", orderPath: "Name")).makeAsyncIterator()
        #expect(try await pages.next()?.isEmpty == true)
        let evaluations = fixture.journal.observerStatistics.evaluationCount
        try fixture.store.write { transaction in
            for number in 0..<3 { try transaction.create("lines", ["Name": .string("L-\(number)")]) }
        }
        #expect(try await pages.next()?.count == 3, "the first value after the commit holds every write")
        #expect(fixture.journal.observerStatistics.evaluationCount == evaluations + 1)
    }
}
