import Determinism
import EventJournal
import Foundation
import SyncTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Kills a child process that appends in a loop with SIGKILL at seeded random moments, and
/// checks after every kill that the journal is a checksummed, gap-free prefix of what was
/// appended and that the projections equal a rebuild.
@Suite struct JournalCrashTests {
    @Test func journalSurvivesSIGKILLAtSeededRandomMoments() async throws {
        let fixture = try JournalFixture("crash")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        let writer = try BuiltProduct("journal-crash-writer")
        var generator = SplitMix64(seed: 20_261_122)
        var lastSeen: UInt64 = 0
        var growingKills = 0
        let killCount = 24
        for round in 0..<killCount {
            let child = try writer.start([store.path, String(round)])
            // The child needs a few milliseconds to start, and far more while the other suites
            // load both cores; spread the kills from before its first append to deep inside
            // its loop.
            let delayMicroseconds = UInt32.random(in: 2_000...250_000, using: &generator)
            try await Task.sleep(for: .microseconds(delayMicroseconds))
            kill(child.processIdentifier, SIGKILL)
            await child.exited()
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")

            let journal = try fixture.open()
            let last = try journal.lastSequence()
            #expect(last >= lastSeen, "round \(round): the journal lost committed entries")
            if last > lastSeen { growingKills += 1 }
            lastSeen = last
            let counted = try journal.read { reader -> [String: UInt64] in
                var counts: [String: UInt64] = [:]
                guard last > 0 else { return counts }
                try reader.forEachEntry(in: 1...last) { entry in
                    #expect(CrashWriterPayload.matches(entry), "round \(round): entry \(entry.sequence) differs")
                    counts[entry.kind.rawValue, default: 0] += 1
                    return true
                }
                return counts
            }
            #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == counted, "round \(round)")
            let report = try journal.verify()
            #expect(report.isConsistent, "round \(round): \(report.divergences)")
        }
        #expect(growingKills >= killCount / 2, "too few kills landed while the child was appending")
    }
}
