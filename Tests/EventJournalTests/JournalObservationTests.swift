import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `Journal.observeEntries(after:)` and `Journal.observeValue(reevaluatingFor:read:)`: current value
/// first, one wake-up per commit of this instance, other processes' commits through the watcher,
/// no entry missed or repeated, and nothing left running once the observers are gone.
@Suite(.timeLimit(.minutes(5))) struct JournalObservationTests {
    /// The value every test observes: how many `note.added` entries the journal holds.
    static func noteCount(_ journal: Journal) -> JournalValueObservation<UInt64> {
        journal.observeValue(reevaluatingFor: { $0.kind == "note.added" }, read: { try $0.count(of: "note.added") })
    }

    /// Unsynced commits: durability is not what these tests check, and synced writers would hold
    /// the cooperative pool's few threads on `fsync`.
    static func options(clock: any Clock<Duration> = ContinuousClock(), pollInterval: Duration? = .milliseconds(5))
        -> JournalOptions
    {
        var options = JournalOptions()
        options.environment.flushesOnCommit = false
        options.observation = ObservationOptions(clock: clock, pollInterval: pollInterval)
        return options
    }

    @Test func entriesAfterASequenceComeFirstThenEachCommittedEntryOnceInOrder() async throws {
        let fixture = try JournalFixture("observe-entries")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: Self.options(pollInterval: nil))
        try journal.append((1...5).map { note("n\($0)", $0) })
        var entries = try journal.observeEntries(after: 2).makeAsyncIterator()
        for expected in 3...5 { #expect(try await entries.next()?.sequence == UInt64(expected)) }
        try journal.append([note("six", 6), JournalEntry.Draft(kind: "other")])
        try journal.append(note("eight", 8))
        for expected in 6...8 { #expect(try await entries.next()?.sequence == UInt64(expected)) }

        var fromNow = try journal.observeEntries().makeAsyncIterator()
        try journal.append(note("nine", 9))
        #expect(try await fromNow.next()?.sequence == 9, "observing from now skips what was there")
    }

    @Test func aValueComesFirstThenAfterEachCommitThatChangesIt() async throws {
        let fixture = try JournalFixture("observe-value")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: Self.options(pollInterval: nil))
        try journal.append(note("one", 1))
        var counts = Self.noteCount(journal).makeAsyncIterator()
        #expect(try await counts.next() == 1)
        try journal.append(note("two", 2))
        #expect(try await counts.next() == 2)
        try journal.append([note("three", 3), note("four", 4)])
        #expect(try await counts.next() == 4, "one commit, one value")
    }

    /// Entries the value does not depend on neither read it again nor yield; relevant entries
    /// that leave it equal read it again but yield nothing.
    @Test func irrelevantEntriesAreNotReadAndUnchangedValuesAreNotYielded() async throws {
        let fixture = try JournalFixture("observe-spurious")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: Self.options(pollInterval: nil))
        let thirds = journal.observeValue(
            reevaluatingFor: { $0.kind == "note.added" }, read: { try $0.count(of: "note.added") / 3 })
        var values = thirds.makeAsyncIterator()
        #expect(try await values.next() == 0)
        let evaluations = journal.observerStatistics.evaluationCount

        let waiting = Task { [values] in
            var values = values
            return try await values.next()
        }
        for number in 1...5 {
            try journal.append(JournalEntry.Draft(kind: "other", header: ["n": .integer(Int64(number))]))
        }
        try journal.append(note("one", 1))
        try await waitUntil("the relevant entry is read") {
            journal.observerStatistics.evaluationCount == evaluations + 1
        }
        #expect(journal.observerStatistics.evaluationCount == evaluations + 1, "five other entries read nothing")
        try journal.append(note("two", 2))
        try await waitUntil("the second note is read") { journal.observerStatistics.evaluationCount == evaluations + 2 }
        try journal.append(note("three", 3))
        #expect(try await waiting.value == 1, "the unchanged 0 was never yielded again")
    }

    @Test func concurrentWritersEndOnTheFinalValueWithNoValueOrEntryRepeated() async throws {
        let fixture = try JournalFixture("observe-concurrent")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: Self.options())
        let writers = 4
        let perWriter = 60
        let total = UInt64(writers * perWriter)
        let values = Task {
            var seen: [UInt64] = []
            for try await count in Self.noteCount(journal) {
                seen.append(count)
                if count == total { break }
            }
            return seen
        }
        let entries = Task {
            var sequences: [UInt64] = []
            for try await entry in try journal.observeEntries(after: 0) {
                sequences.append(entry.sequence)
                if sequences.count == Int(total) { break }
            }
            return sequences
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for number in 0..<perWriter { try journal.append(note("w\(writer)", number)) }
                }
            }
            try await group.waitForAll()
        }
        let yielded = try await values.value
        #expect(yielded.last == total)
        #expect(zip(yielded, yielded.dropFirst()).allSatisfy { $0 < $1 }, "each value differs from the one before")
        #expect(try await entries.value == Array(1...total))
    }

    @Test func cancellingTheLastObserverStopsTheOneWatcher() async throws {
        let fixture = try JournalFixture("observe-cancel")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: Self.options())
        let started = Shared(0)
        let observers = (0..<3).map { _ in
            Task {
                for try await _ in Self.noteCount(journal) { started.value.withLock { $0 += 1 } }
            }
        }
        let entries = Task {
            for try await _ in try journal.observeEntries() {}
        }
        try await waitUntil("every observer read its first value") { started.value.withLock { $0 } == 3 }
        try await waitUntil("the entry observer registered") { journal.observerStatistics.observerCount == 4 }
        #expect(journal.observerStatistics.startedWatcherCount == 1, "one watcher however many observers")
        #expect(journal.observerStatistics.runningWatcherCount == 1)

        for observer in observers { observer.cancel() }
        for observer in observers { try await observer.value }
        #expect(journal.observerStatistics.observerCount == 1)
        #expect(journal.observerStatistics.runningWatcherCount == 1, "one observer left keeps the watcher")
        entries.cancel()
        try await entries.value
        #expect(journal.observerStatistics.observerCount == 0)
        try await waitUntil("the watcher returned") { journal.observerStatistics.runningWatcherCount == 0 }

        var again = Self.noteCount(journal).makeAsyncIterator()
        #expect(try await again.next() == 0)
        #expect(journal.observerStatistics.startedWatcherCount == 2, "a new observer starts a new watcher")
    }

    /// A zero interval is taken as the shortest one: the watcher waits between checks on the
    /// clock instead of trapping or spinning.
    @Test func aZeroPollIntervalWaitsTheShortestIntervalOnTheClock() async throws {
        let fixture = try JournalFixture("observe-zero-interval")
        defer { fixture.directory.remove() }
        let clock = ManualClock()
        let journal = try fixture.open(options: Self.options(clock: clock, pollInterval: .zero))
        var values = Self.noteCount(journal).makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await waitUntil("the watcher sleeps on the clock") { clock.sleeperCount > 0 }
        #expect(clock.requestedSleeps.allSatisfy { $0 == ObservationOptions.pollIntervalMin })
        try journal.append(note("one", 1))
        #expect(try await values.next() == 1)
    }

    @Test func closingTheJournalEndsEveryObservation() async throws {
        let fixture = try JournalFixture("observe-close")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: Self.options())
        let values = Task {
            var seen: [UInt64] = []
            for try await count in Self.noteCount(journal) { seen.append(count) }
            return seen
        }
        let entries = Task {
            var count = 0
            for try await _ in try journal.observeEntries() { count += 1 }
            return count
        }
        try await waitUntil("both observers registered") { journal.observerStatistics.observerCount == 2 }
        try journal.close()
        #expect(try await values.value.allSatisfy { $0 == 0 })
        #expect(try await entries.value == 0)
        try await waitUntil("the watcher returned") { journal.observerStatistics.runningWatcherCount == 0 }
        #expect(throws: JournalError.self) { try journal.observeEntries() }
    }

    /// Compaction removes entries an observer has not looked at yet: a value observation reads
    /// its value again rather than guess (here its relevance test would never say yes), and an
    /// entries observation ends with the typed horizon error instead of skipping them.
    @Test func anObserverACompactionLeftBehindReadsItsValueAgainOrGetsTheHorizonError() async throws {
        let fixture = try JournalFixture("observe-compaction")
        defer { fixture.directory.remove() }
        var options = Self.options(pollInterval: nil)
        options.retention = .unlimited
        let journal = try fixture.open(options: options)
        var values = journal.observeValue(reevaluatingFor: { _ in false }, read: { try $0.count(of: "other") })
            .makeAsyncIterator()
        var entries = try journal.observeEntries(after: 0).makeAsyncIterator()
        #expect(try await values.next() == 0)

        try journal.append((1...300).map { JournalEntry.Draft(kind: "other", header: ["n": .integer(Int64($0))]) })
        try journal.compact(retention: RetentionPolicy(entryCount: 100))
        #expect(try journal.horizon().firstSequence == 201)
        #expect(try await values.next() == 300)
        await #expect(throws: JournalError.self) { _ = try await entries.next() }
        #expect(try await entries.next() == nil, "the observation ended")
        try journal.append(JournalEntry.Draft(kind: "other"))
        let next = Task { [values] in
            var values = values
            return try await values.next()
        }
        try await waitUntil("the irrelevant entry is looked at") {
            journal.observerStatistics.waitingObserverCount == 1
                && journal.observerStatistics.evaluationCount == 1
        }
        next.cancel()
        #expect(try await next.value == nil, "entries after the horizon are judged by the test again")
    }

    /// The watcher waits on the injected clock for the configured interval, and its check finds
    /// what another process committed meanwhile.
    @Test func theWatcherWaitsOnTheInjectedClockThenSeesAnotherProcesssEntries() async throws {
        let fixture = try JournalFixture("observe-clock")
        defer { fixture.directory.remove() }
        let clock = ManualClock()
        let journal = try fixture.open(options: Self.options(clock: clock, pollInterval: .seconds(30)))
        let observation = try journal.observeEntries()
        let first = Task {
            var entries = observation.makeAsyncIterator()
            return try await entries.next()
        }
        try await waitUntil("the observer waits and the watcher sleeps") {
            journal.observerStatistics.waitingObserverCount == 1 && clock.sleeperCount == 1
        }
        #expect(clock.requestedSleeps == [.seconds(30)])

        let child = try BuiltProduct("journal-crash-writer").start([fixture.directory.appending("store").path, "7"])
        try await waitUntil("the child commits") { try journal.lastSequence() > 0 }
        kill(child.processIdentifier, SIGKILL)
        await child.exited()
        clock.advance(by: .seconds(30))
        let entry = try #require(try await first.value)
        #expect(entry.sequence == 1)
        #expect(CrashWriterPayload.matches(entry))
    }

    /// A real second process appends in batches while this one observes: every entry arrives
    /// once, in order, exactly as the child wrote it, and the entries this process appends
    /// afterwards follow without a gap.
    @Test func anotherProcesssEntriesArriveOnceEachInOrder() async throws {
        let fixture = try JournalFixture("observe-process")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: Self.options())
        let observed = Shared<[JournalEntry]>([])
        let observer = Task {
            for try await entry in try journal.observeEntries(after: 0) {
                observed.value.withLock { $0.append(entry) }
                if entry.kind == "parent.done" { break }
            }
        }
        let child = try BuiltProduct("journal-crash-writer").start([fixture.directory.appending("store").path, "11"])
        try await waitUntil("300 entries from the child") { observed.value.withLock { $0.count } >= 300 }
        kill(child.processIdentifier, SIGKILL)
        await child.exited()
        // A kill between the child's two commits leaves entries unfolded; this write folds them.
        let done = try journal.append(JournalEntry.Draft(kind: "parent.done"))
        try await observer.value
        let entries = observed.value.withLock { $0 }
        #expect(entries.map(\.sequence) == Array(1...done.sequence))
        #expect(entries.dropLast().allSatisfy(CrashWriterPayload.matches))
    }
}

/// A value tasks of a test share.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }
}
