/// An error from the journal: corruption, a format it cannot read, bad input, or storage trouble.
///
/// ```swift
/// do { try journal.verify() }
/// catch JournalError.Code.corruptEntry { … }
/// ```
public struct JournalError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for code that reacts to it.
    public var code: Code
    /// What went wrong, for people: one sentence naming the entry or file involved.
    public var message: String
    /// The sequence number of the entry involved, when there is one.
    public var sequence: UInt64?
    /// The underlying error, such as an `LMDBError`.
    public var cause: (any Error)?
    /// Where in SyncJournal the error was raised.
    public var location: SourceCodeLocation

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, sequence: UInt64? = nil, cause: (any Error)? = nil,
        fileID: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.sequence = sequence
        self.cause = cause
        self.location = SourceCodeLocation(fileID: fileID, line: line)
    }

    public var description: String {
        message
    }

    /// Whether the error reports damage to the journal's data file, which nothing rebuilds:
    /// ``Code/damagedJournal``, or an entry that failed its checksum or authentication or is
    /// missing from the middle (``Code/corruptEntry``, ``Code/gap``, ``Code/tampered`` with a
    /// ``sequence``). Such an error from an open or a read names the file and
    /// `journal-replay recover` (decision 0027).
    public var isJournalDamage: Bool {
        switch code {
        case .damagedJournal, .corruptEntry, .gap: true
        case .tampered: sequence != nil
        default: false
        }
    }

    /// Whether retrying the same operation later may succeed (the disk or map was full).
    public var isRetryable: Bool {
        code == .storageFull
    }

    /// The kind of a ``JournalError``. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case corruptEntry, gap, newerFormat, needsMigration, invalidEntry, storageFull, storage,
                malformedExport, notEmpty, missingStore, closed, belowHorizon, invalidKey, keyRequired, wrongKey,
                notEncrypted, tampered, storeInUse, unsupported, journalBehind, notAStore, damaged, damagedJournal
        }

        private let value: Value

        /// A stored entry failed its checksum or could not be decoded.
        public static let corruptEntry = Code(value: .corruptEntry)
        /// Sequence numbers are not consecutive.
        public static let gap = Code(value: .gap)
        /// The store was written by a newer SyncJournal.
        public static let newerFormat = Code(value: .newerFormat)
        /// The store was written by an older SyncJournal that this one cannot convert.
        public static let needsMigration = Code(value: .needsMigration)
        /// An entry to append breaks a rule (empty kind, oversized field, payload not JSON…).
        public static let invalidEntry = Code(value: .invalidEntry)
        /// The disk or the memory map is full; nothing of the failed write was stored.
        public static let storageFull = Code(value: .storageFull)
        /// LMDB failed for another reason; see ``JournalError/cause``.
        public static let storage = Code(value: .storage)
        /// An export file to import is malformed.
        public static let malformedExport = Code(value: .malformedExport)
        /// Import needs an empty journal.
        public static let notEmpty = Code(value: .notEmpty)
        /// There is no store at the given location.
        public static let missingStore = Code(value: .missingStore)
        /// The journal was closed; open the store again to use it.
        public static let closed = Code(value: .closed)
        /// The question needs entries that compaction removed: they lie below the journal's
        /// ``JournalHorizon``. The message names the horizon.
        public static let belowHorizon = Code(value: .belowHorizon)
        /// A ``StoreKey`` was not 256 bits, or its file could not be read.
        public static let invalidKey = Code(value: .invalidKey)
        /// The store is encrypted and was opened without a key.
        public static let keyRequired = Code(value: .keyRequired)
        /// The key given is not the store's key.
        public static let wrongKey = Code(value: .wrongKey)
        /// A key was given for a store that was created without one.
        public static let notEncrypted = Code(value: .notEncrypted)
        /// A sealed value failed authentication: the file was changed without the key, or is
        /// damaged. ``JournalError/sequence`` names the entry when the value is one.
        public static let tampered = Code(value: .tampered)
        /// A projection value of a plaintext store failed its checksum on read (decision 0012):
        /// it is not read, and the next open rebuilds the projections from the journal (or
        /// restores them from a checkpoint and folds the rest). Encrypted stores say
        /// ``tampered`` instead. Also every read and write of a journal instance that met a
        /// damaged page of its projections (LMDB's note, decision 0013): close it and open the
        /// store again, which rebuilds them.
        public static let damaged = Code(value: .damaged)
        /// The store is open in another process, and the operation needs it alone (re-keying).
        public static let storeInUse = Code(value: .storeInUse)
        /// The store cannot do what was asked in its configuration (a plaintext compaction
        /// archive of an encrypted store).
        public static let unsupported = Code(value: .unsupported)
        /// The journal is missing, empty, shorter than what the projections or checkpoints have
        /// folded, or another history than theirs: it lost entries (deleted, truncated, or an
        /// older copy put back). Opening changes no file; the message names both positions.
        /// `Journal.recoverJournal(directory:projections:clock:options:logger:)` starts a new
        /// journal from the projections' state, keeping the damaged one aside.
        public static let journalBehind = Code(value: .journalBehind)
        /// The path is not a SyncJournal store: a plain file, an empty folder, a store's
        /// projections or checkpoint folder, or a folder whose `journal/data.mdb` is empty.
        public static let notAStore = Code(value: .notAStore)
        /// The journal's data file (`journal/data.mdb`) is damaged: shorter than the pages its
        /// meta page names in use (truncated), without LMDB's meta pages, or with a page LMDB
        /// can reach that is not what LMDB writes (decision 0027). It is not mapped, since LMDB
        /// would end the process with a signal or an assertion, and no file is changed; the
        /// message names the file. Damage a read meets later (an entry that fails its checksum
        /// or authentication, a page LMDB reports damaged) is reported the same way, with the
        /// first error as ``JournalError/cause``. Unlike damaged projections nothing rebuilds
        /// it: put it back from a backup, or salvage the store with
        /// `Journal.recoverJournal(directory:projections:clock:options:logger:)`
        /// (`journal-replay recover STORE`).
        public static let damagedJournal = Code(value: .damagedJournal)

        public var description: String {
            value.rawValue
        }

        /// Matches an error against a code: `catch JournalError.Code.gap`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? JournalError)?.code == code
        }
    }
}
