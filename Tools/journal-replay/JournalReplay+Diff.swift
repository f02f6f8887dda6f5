import ArgumentParser
import EventJournal

extension JournalReplay {
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two stores: the first differing entry and the first divergent key of each projection; "
                + "exit 1 when they differ.")

        @Argument(help: "The first store directory (or the journal/ folder inside it).") var storeA: String
        @Argument(help: "The second store directory (or the journal/ folder inside it).") var storeB: String

        func run() throws {
            let first = try openStore(storeA)
            let second = try openStore(storeB)
            let difference: JournalDifference
            do {
                difference = try first.difference(from: second)
            } catch {
                throw fail(error)
            }
            print("entries: \(difference.lastSequences.0) in A, \(difference.lastSequences.1) in B")
            if let sequence = difference.firstDifferentSequence {
                print("first differing entry: \(sequence)")
            }
            for divergence in difference.projectionDivergences {
                print("projection divergence (stored = A, rebuilt = B): \(divergence)")
            }
            guard difference.isEmpty else { throw ExitStatus.divergence }
            print("no differences")
        }
    }
}
