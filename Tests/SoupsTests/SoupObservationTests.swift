import EventJournal
import LosslessJSON
import Soups
import SyncTesting
import Testing

/// `SoupStore.observeQuery(_:pageIndex:)` and `observeRecord(_:entryId:)`: the current value
/// first, a new value after each commit that changes it, nothing for other soups' writes or for
/// writes that leave the value as it was, and typed errors.
@Suite(.timeLimit(.minutes(5))) struct SoupObservationTests {
    let specs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)]

    static func names(_ records: [JSONValue]?) -> [String] {
        (records ?? []).compactMap { $0["Name"]?.string }
    }

    /// Unsynced commits: durability is not what these tests check, and synced writers would hold
    /// the cooperative pool's few threads on `fsync`.
    func fixture(_ label: String) throws -> SoupFixture {
        let fixture = try SoupFixture(label, flushesOnCommit: false)
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        try fixture.store.registerSoup("contacts", indexSpecs: specs)
        return fixture
    }

    @Test func aQueryYieldsItsPageFirstThenAfterEachCommitToItsSoup() async throws {
        let fixture = try fixture("observe-query")
        defer { fixture.remove() }
        let acme = try fixture.store.create("accounts", ["Name": "Acme"])
        var pages = fixture.store.observeQuery(.all("accounts", orderPath: "Name")).makeAsyncIterator()
        #expect(Self.names(try await pages.next()) == ["Acme"])
        try fixture.store.create("accounts", ["Name": "Bolt"])
        #expect(Self.names(try await pages.next()) == ["Acme", "Bolt"])
        try fixture.store.update("accounts", ["Name": "Zinc"], entryId: acme.entryId!)
        #expect(Self.names(try await pages.next()) == ["Bolt", "Zinc"])
        try fixture.store.delete("accounts", ids: [acme.entryId!])
        #expect(Self.names(try await pages.next()) == ["Bolt"])
        try fixture.store.clearSoup("accounts")
        #expect(Self.names(try await pages.next()) == [])
    }

    @Test func writesToAnotherSoupNeitherRunTheQueryAgainNorYield() async throws {
        let fixture = try fixture("observe-other-soup")
        defer { fixture.remove() }
        var pages = fixture.store.observeQuery(.all("accounts", orderPath: "Name")).makeAsyncIterator()
        #expect(Self.names(try await pages.next()) == [])
        let evaluations = fixture.journal.observerStatistics.evaluationCount
        let next = Task { [pages] in
            var pages = pages
            return try await pages.next()
        }
        for number in 0..<5 { try fixture.store.create("contacts", ["Name": .string("Contact \(number)")]) }
        try fixture.store.registerSoup("leads", indexSpecs: specs)
        try fixture.store.create("accounts", ["Name": "Acme"])
        #expect(Self.names(try await next.value) == ["Acme"])
        #expect(fixture.journal.observerStatistics.evaluationCount == evaluations + 1, "only the accounts write ran it")
    }

    /// A write to the soup that leaves the page as it was runs the query again and yields
    /// nothing: the next value is the one after the write that changes the page.
    @Test func aWriteThatLeavesThePageAsItWasIsNotYielded() async throws {
        let fixture = try fixture("observe-unchanged")
        defer { fixture.remove() }
        try fixture.store.create("accounts", [["Name": "Acme"], ["Name": "Bolt"]])
        var pages = fixture.store.observeQuery(.all("accounts", orderPath: "Name", pageSize: 2)).makeAsyncIterator()
        #expect(Self.names(try await pages.next()) == ["Acme", "Bolt"])
        let evaluations = fixture.journal.observerStatistics.evaluationCount
        let next = Task { [pages] in
            var pages = pages
            return try await pages.next()
        }
        try fixture.store.create("accounts", ["Name": "Crux"])
        try await waitUntil("the query ran again") {
            fixture.journal.observerStatistics.evaluationCount == evaluations + 1
        }
        try fixture.store.create("accounts", ["Name": "Able"])
        #expect(Self.names(try await next.value) == ["Able", "Acme"])
    }

    @Test func aRecordIsNilUntilCreatedThenFollowsItsChangesUntilDeleted() async throws {
        let fixture = try fixture("observe-record")
        defer { fixture.remove() }
        var records = fixture.store.observeRecord("accounts", entryId: 1).makeAsyncIterator()
        #expect(try await records.next() == .some(nil))
        let created = try fixture.store.create("accounts", ["Name": "Acme"])
        #expect(try await records.next() == created)
        let next = Task { [records] in
            var records = records
            return try await records.next()
        }
        try fixture.store.create("accounts", ["Name": "Bolt"])
        let updated = try fixture.store.update("accounts", ["Name": "Acme Inc"], entryId: 1)
        #expect(try await next.value == updated, "the other record's creation yielded nothing")
        try fixture.store.delete("accounts", ids: [1])
        #expect(try await records.next() == .some(nil))
    }

    @Test func anUnknownOrDroppedSoupIsATypedSoupError() async throws {
        let fixture = try fixture("observe-unknown")
        defer { fixture.remove() }
        var unknown = fixture.store.observeQuery(.all("nowhere")).makeAsyncIterator()
        await #expect(throws: SoupError.self) { _ = try await unknown.next() }
        #expect(try await unknown.next() == nil, "an observation that threw has ended")

        var record = fixture.store.observeRecord("contacts", entryId: 1).makeAsyncIterator()
        #expect(try await record.next() == .some(nil))
        try fixture.store.dropSoup("contacts")
        do {
            _ = try await record.next()
            Issue.record("dropping the observed soup is an error")
        } catch {
            #expect(error.code == .unknownSoup)
        }
    }

    @Test func concurrentWritersLeaveTheObserverOnTheFinalPageWithNoPageRepeated() async throws {
        let fixture = try fixture("observe-concurrent")
        defer { fixture.remove() }
        let writers = 4
        let perWriter = 25
        let observer = Task {
            var counts: [Int] = []
            for try await page in fixture.store.observeQuery(.all("accounts", pageSize: 1000)) {
                counts.append(page.count)
                if page.count == writers * perWriter { break }
            }
            return counts
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for number in 0..<perWriter {
                        try fixture.store.create("accounts", ["Name": .string("a\(writer)-\(number)")])
                        try fixture.store.create("contacts", ["Name": .string("c\(writer)-\(number)")])
                    }
                }
            }
            try await group.waitForAll()
        }
        let counts = try await observer.value
        #expect(counts.last == writers * perWriter)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 < $1 }, "every page differs from the one before")
        #expect(fixture.journal.observerStatistics.observerCount == 0, "leaving the loop ended the observation")
    }

    @Test func cancellingAnObservationFreesItsObserver() async throws {
        let fixture = try fixture("observe-cancel")
        defer { fixture.remove() }
        let observer = Task {
            var pages = 0
            for try await _ in fixture.store.observeQuery(.all("accounts")) { pages += 1 }
            return pages
        }
        try await waitUntil("the observer waits") { fixture.journal.observerStatistics.waitingObserverCount == 1 }
        observer.cancel()
        #expect(try await observer.value == 1)
        #expect(fixture.journal.observerStatistics.observerCount == 0)
        try await waitUntil("the watcher returned") { fixture.journal.observerStatistics.runningWatcherCount == 0 }
    }
}
