import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// Observations in this process follow what a real second process — the built `msync` — commits
/// to the same store: the journal's watcher notices its commits through the fold mark.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ObservationAcrossProcessesTests {
    let msync: BuiltProduct
    let directory: TemporaryDirectory
    let store: SyncStore

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("observe-processes")
        var options = JournalOptions()
        options.observation = ObservationOptions(pollInterval: .milliseconds(5))
        store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(), idGenerator: IncrementingIDGenerator(),
            options: options, logger: .discarding)
    }

    /// Runs `msync` with `arguments` on the store, off the cooperative pool's threads.
    private func msync(_ arguments: [String], connection: [String] = []) async throws {
        let child = try msync.start(
            arguments + ["--store", directory.appending("store").path] + connection, quietly: true)
        await child.exited()
        #expect(child.terminationStatus == 0, "msync \(arguments.joined(separator: " "))")
    }

    @Test func aQueryAndARecordFollowWritesMadeByAnotherProcess() async throws {
        defer { directory.remove() }
        let specs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)]
        try store.soups.registerSoup("accounts", indexSpecs: specs)
        try store.soups.registerSoup("contacts", indexSpecs: specs)
        var pages = store.soups.observeQuery(.all("accounts", orderPath: "Name")).makeAsyncIterator()
        var record = store.soups.observeRecord("accounts", entryId: 1).makeAsyncIterator()
        #expect(try await pages.next() == [])
        #expect(try await record.next() == .some(nil))

        try await msync(["create", "accounts", #"{"Name":"Acme"}"#])
        #expect(try await pages.next()?.compactMap { $0["Name"]?.string } == ["Acme"])
        #expect(try await record.next()??["Name"] == "Acme")

        let evaluations = store.journal.observerStatistics.evaluationCount
        try await msync(["create", "contacts", #"{"Name":"Carla"}"#])
        try await msync(["update", "accounts", "1", #"{"Name":"Acme Inc"}"#])
        #expect(try await pages.next()?.compactMap { $0["Name"]?.string } == ["Acme Inc"])
        #expect(try await record.next()??["Name"] == "Acme Inc")
        #expect(
            store.journal.observerStatistics.evaluationCount == evaluations + 2,
            "the contacts write ran neither observation again")
    }

    @Test func aSyncRunByAnotherProcessIsObservedUntilDone() async throws {
        defer { directory.remove() }
        let simulator = try SimulatorProcess(["--seed", "5"])
        defer { simulator.stop() }
        try store.soups.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        var observation = store.observeSyncState(named: "accountsDown").makeAsyncIterator()
        #expect(try await observation.next() == .some(nil), "no such sync when observing began")
        let observed = Task { [observation] in
            var observation = observation
            var states: [SyncState?] = []
            while let state = try await observation.next() {
                states.append(state)
                if state?.status == .done { break }
            }
            return states
        }
        let target = #"{"type": "soql", "query": "SELECT Id, Name, LastModifiedDate FROM Account"}"#
        try await msync(
            ["sync-down", "--soup", "accounts", "--target", target, "--name", "accountsDown"],
            connection: simulator.connectionArguments)
        let states = try await observed.value
        #expect(states.first??.name == "accountsDown")
        #expect(states.last == (try store.syncState(named: "accountsDown")))
        #expect(states.last??.progress == 100)
        #expect(zip(states, states.dropFirst()).allSatisfy { $0 != $1 }, "every state differs from the one before")
    }
}
