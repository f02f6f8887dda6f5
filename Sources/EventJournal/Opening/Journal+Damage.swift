import Foundation
import LMDBStore
import Synchronization

extension Journal {
    /// Makes a process that meets a damaged page of a store's projections while reading them
    /// end with `status` and one line on standard error instead of LMDB's `abort()` or a
    /// SIGSEGV or SIGBUS, once the note that makes the next open rebuild them is written
    /// (decision 0013).
    ///
    /// For command-line tools, whose callers expect an exit status and one line, never a signal.
    /// An app leaves it unset, so that its crash reporter sees the crash; either way the next
    /// open rebuilds the projections instead of crashing again.
    /// - Parameters:
    ///   - status: the exit status.
    ///   - prefix: the start of the line, such as the tool's name and a colon.
    public static func endProcessOnProjectionDamage(status: Int32, prefix: String) {
        DamageNote.endProcessOnDamage(status: status, prefix: prefix)
    }

    /// Whether `error`, or an error it wraps, is LMDB reporting a damaged page
    /// (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`): the projections' environment notes it, and the
    /// next open rebuilds them (decision 0013).
    public static func isDamagedPage(_ error: any Error) -> Bool {
        var current: (any Error)? = error
        var depth = 0
        while let error = current, depth < 8 {
            if let code = error as? LMDBError { return code == .corrupted || code == .pageNotFound }
            current = (error as? JournalError)?.cause
            depth += 1
        }
        return false
    }

    /// ``requireOpen()``, and ``JournalError/Code/damaged`` when this process found the
    /// projections damaged: nothing is read or appended until the store is opened again. One
    /// look at the lifecycle, since every read and write asks.
    func requireOpenAndUndamaged() throws {
        let (isClosed, damage) = lifecycle.withLock { ($0.isClosed, $0.projectionDamage) }
        guard !isClosed else { throw closedError }
        guard let damage else { return }
        throw JournalError(
            .damaged,
            "the projections at \(layout.projectionDirectory.path) were found damaged (\(damage)); nothing was read "
                + "or appended: close the journal and open it again, which rebuilds them from the journal")
    }

    /// Remembers `error` as what found the projections damaged when LMDB's ``DamageNote`` is
    /// on disk (decision 0013), and answers whether it is. Any failure may be the one that met
    /// the damage, so the note, not the error's type, decides.
    ///
    /// A value that failed its checksum or authentication (decision 0012) does not count: the
    /// file's structure is sound, the other values are still checked on every read, and a write
    /// whose fold meets the value fails before the journal commits.
    @discardableResult
    func noteProjectionDamageIfNoted(by error: any Error) -> Bool {
        guard DamageNote.read(in: layout.projectionDirectory) != nil else { return false }
        lifecycle.withLock { lifecycle in
            if lifecycle.projectionDamage == nil { lifecycle.projectionDamage = "\(error)" }
        }
        return true
    }
}
