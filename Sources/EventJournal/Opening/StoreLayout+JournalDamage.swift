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
    /// meta page names in use, or without LMDB's meta pages (``DataFileHeader``).
    ///
    /// Nothing is mapped or changed. A missing or empty file passes: opening refuses a lost
    /// journal, or makes a new one, as before.
    /// - Throws: ``JournalError/Code/damagedJournal`` naming the file and what salvages it.
    func requireUndamagedJournal() throws {
        guard let damage = Self.dataFileDamage(journalDataFile) else { return }
        throw JournalError(
            .damagedJournal,
            "the journal's data file \(journalDataFile.path) is damaged: \(damage.reason); it was not opened and no "
                + "file was changed. Put the journal back from a backup, or run `journal-replay recover "
                + "\(directory.path)` to salvage the store from its projections (the damaged journal is kept aside)",
            cause: damage)
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
