import ArgumentParser
import EventJournal
import Foundation
import Logging
import MobileSync
import ToolSupport

extension JournalReplay {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every checksum and compare the projections with a rebuild; exit 1 on any divergence.")

        @Argument(help: storeArgumentHelp) var store: String

        func run() throws {
            let report: VerificationReport
            let horizon: JournalHorizon
            let damage: String?
            do {
                // Opening may refold projections from the entries, so a damaged entry can
                // already show here; either way it is a divergence, not a tool failure.
                // Damage that a reading process found and noted was reported by that process;
                // the open below reads a scratch rebuild instead of those projections (the next
                // writing open replaces them), and verify says so without failing for it a
                // second time. Damage this open finds first is a divergence.
                try requireStorePath(store)
                let noted = StoreLayout(directory: URL(fileURLWithPath: store)).projectionDamageNoted
                let journal = try openSyncStore(store).journal
                horizon = try journal.horizon()
                let found = journal.openingReport.projectionsDamage.map {
                    "\($0) (they were \(journal.openingReport.projections) on open)"
                }
                if noted, let found {
                    print("projections repaired: \(found)")
                    damage = nil
                } else {
                    damage = found.map { "projections damaged: \($0)" }
                }
                let progress = ProgressReporter("verifying")
                // Verify reads the store and leaves it as it was (decision 0024, which
                // supersedes 0011's checkpoints): the fold leaves no checkpoints behind.
                report = try journal.verify { done, total in progress.update(done, of: total) }
                progress.finish()
            } catch let error as ValidationError {
                throw error
            } catch let error as JournalError where error.code == .corruptEntry || error.code == .gap {
                print("journal-replay: \(error)")
                throw ExitStatus.divergence
            } catch  where Journal.isDamagedPage(error) {
                // The projections' environment noted the damage: the next open rebuilds them.
                print("projections damaged: \(error); the next open rebuilds them from the journal")
                throw ExitStatus.divergence
            } catch {
                throw fail(error)
            }
            if let damage { print(damage) }
            guard report.isConsistent, damage == nil else {
                for divergence in report.divergences { print("divergence: \(divergence)") }
                throw ExitStatus.divergence
            }
            guard horizon.isCompacted else {
                print("ok: \(report.lastSequence) entries verified; projections equal a rebuild")
                return
            }
            // After compaction only the entries from the horizon on exist: say how many, and
            // that the fold started from the horizon's checkpoint.
            let kept =
                report.lastSequence >= horizon.firstSequence ? report.lastSequence - horizon.firstSequence + 1 : 0
            print(
                "ok: \(kept) entries verified (\(horizon.firstSequence)…\(report.lastSequence)), from the horizon's "
                    + "checkpoint at entry \(horizon.anchorSequence); projections equal a rebuild")
        }
    }
}
