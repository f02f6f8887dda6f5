public import EventJournal
import MobileSync
import Soups

/// Finds a damaged journal inside whatever error a command failed with, so that both tools
/// print the journal's own sentence (its file and `journal-replay recover`) and exit with the
/// store's status, 3, however many layers wrapped it (issue 49, decision 0027).
///
/// A soup query or a sync that meets a damaged journal fails with its own error type, whose
/// code says what the operation was (a soup's `storage`, a sync's failure), not what the
/// store found; its cause keeps the `JournalError`.
public enum DamagedJournal {
    /// How many causes deep the search goes: the layers are few, and a loop must end.
    static let causeDepthMax = 8

    /// The journal damage (`JournalError.isJournalDamage`) `error` is or wraps, or `nil`.
    public static func find(in error: any Error) -> JournalError? {
        var current: (any Error)? = error
        for _ in 0..<causeDepthMax {
            switch current {
            case let error as JournalError:
                if error.isJournalDamage { return error }
                current = error.cause
            case let error as SoupError: current = error.cause
            case let error as SyncError: current = error.cause
            default: return nil
            }
        }
        return nil
    }
}
