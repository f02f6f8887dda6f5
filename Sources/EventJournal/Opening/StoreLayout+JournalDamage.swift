import Foundation
import LMDBStore

// A truncated journal file used to end every command with SIGBUS: LMDB maps `data.mdb` and
// reads the pages its meta page names, and a page past the end of the file is a fault, not an
// error (issue 49). The projections' file has been checked before mapping since decision 0013;
// the journal's file gets the same check, but damage to it is an error instead of a rebuild,
// since the journal is the one durable write and nothing can rebuild it.
extension StoreLayout {
    /// The journal's LMDB data file.
    var journalDataFile: URL {
        journalDirectory.appendingPathComponent("data.mdb")
    }

    /// Refuses a journal whose data file LMDB must not map: shorter than the pages its newer
    /// meta page names in use, without LMDB's meta pages (``DataFileHeader``), or with a page
    /// LMDB can reach that is not what LMDB writes (decision 0027).
    ///
    /// Nothing is mapped or changed. A missing or empty file passes: opening refuses a lost
    /// journal, or makes a new one, as before.
    /// - Throws: ``JournalError/Code/damagedJournal`` naming the file and what salvages it.
    func requireUndamagedJournal() throws {
        guard let damage = Self.dataFileDamage(journalDataFile) ?? Self.treeDamage(journalDataFile) else { return }
        throw damagedJournalError(damage.reason, opened: false, cause: damage)
    }

    /// What is wrong with a page of the LMDB data file `file` that LMDB can reach, or `nil`
    /// when every such page is what LMDB writes (``DataFileHeader/checkTrees(of:)``): LMDB trusts
    /// its pages and would fault or abort on one that is not, instead of returning an error
    /// (decision 0027). Read for the journal only: nothing rebuilds it, while damaged
    /// projections are rebuilt after the one command that meets the damage (decision 0015).
    static func treeDamage(_ file: URL) -> DataFileDamage? {
        do {
            try DataFileHeader.checkTrees(of: file)
            return nil
        } catch {
            return error
        }
    }

    /// What is wrong with the LMDB data file `file`, or `nil` when it may be mapped (or is
    /// missing or empty).
    ///
    /// A failed check is read again once: a writer in another process may have been
    /// committing while the meta pages were read, and LMDB writes a commit's pages before the
    /// meta page that names them, so a second read sees a consistent file.
    static func dataFileDamage(_ file: URL) -> DataFileDamage? {
        do {
            _ = try DataFileHeader.read(from: file)
            return nil
        } catch {
            do {
                _ = try DataFileHeader.read(from: file)
                return nil
            } catch {
                return error
            }
        }
    }
}

// Damage met while reading the journal: a page LMDB reports damaged (or a key or value that
// reaches past the end of the file, decision 0027) is `damagedJournal` with the sentence of a
// truncated file; an entry that fails its checksum or its authentication, a sequence missing
// from the middle, or an unreadable key record keep their codes and get the same naming of
// the file and of the command that salvages the store, so that every tool prints both.
extension StoreLayout {
    /// The error that reports `error` as journal damage, naming the file and `journal-replay
    /// recover`, or `nil` when it is not journal damage (or already says so).
    ///
    /// LMDB's damage codes count only when the projections have not been found damaged in
    /// this process or before: those are rebuilt at the next open, not salvaged.
    func journalDamage(in error: any Error) -> JournalError? {
        guard let error = error as? JournalError else {
            return lmdbDamageReason(error).map { damagedJournalError($0, opened: true, cause: error) }
        }
        // Said once: an error from an inner read already names the file.
        guard error.code != .damagedJournal, !error.message.contains(salvageAdvice) else { return nil }
        switch error.code {
        case .corruptEntry, .gap:
            return naming(error)
        case .tampered where error.sequence != nil || error.message.contains(StoreCipher.keysDatabaseName):
            return naming(error)
        case .storage:
            return error.cause.flatMap(lmdbDamageReason).map { damagedJournalError($0, opened: true, cause: error) }
        default:
            return nil
        }
    }

    /// What salvages a store whose journal is damaged, said by every error that reports it.
    var salvageAdvice: String {
        "Put the journal back from a backup, or run `journal-replay recover \(directory.path)` to salvage the store "
            + "from its projections (the damaged journal is kept aside)"
    }

    /// `error`, its code and sequence kept (an entry's checksum, a gap, an entry's
    /// authentication), saying which file is damaged and what salvages the store.
    private func naming(_ error: JournalError) -> JournalError {
        var named = error
        named.message += "; the journal's data file \(journalDataFile.path) is damaged. \(salvageAdvice)"
        return named
    }

    /// The sentence of every ``JournalError/Code/damagedJournal``: the file, what is wrong with
    /// it, and what salvages the store; `opened` when a read met the damage after opening.
    func damagedJournalError(
        _ reason: String, opened: Bool, sequence: UInt64? = nil, cause: any Error
    ) -> JournalError {
        JournalError(
            .damagedJournal,
            "the journal's data file \(journalDataFile.path) is damaged: \(reason); "
                + (opened ? "the read stopped there" : "it was not opened") + " and no file was changed. "
                + salvageAdvice,
            sequence: sequence, cause: cause)
    }

    /// Runs `body`, which reads the journal, and throws ``journalDamage(in:)`` of what it throws
    /// when that is journal damage.
    func refusingJournalDamage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw journalDamage(in: error) ?? error
        }
    }

    private func lmdbDamageReason(_ error: any Error) -> String? {
        guard let code = error as? LMDBError, code == .corrupted || code == .pageNotFound, !projectionDamageNoted
        else { return nil }
        return "LMDB found a damaged page (\(code))"
    }
}
