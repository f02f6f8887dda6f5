/// Why a SmartStore database could not be imported; nothing was written.
///
/// Errors about the file name the table and, for a record or a sync, the row (its `id`, the
/// `_soupEntryId`), so the record can be found with the `sqlite3` shell:
///
/// ```swift
/// do { _ = try SmartStoreDatabase(contentsOf: url) }
/// catch SmartStoreImportError.Code.malformedRecord { … }
/// ```
public struct SmartStoreImportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for code that reacts to it.
    public var code: Code
    /// What went wrong, for people: one sentence naming the file, table and row involved.
    public var message: String
    /// The SQLite table the error is about, such as `TABLE_3` or `soup_index_map`.
    public var table: String?
    /// The row of ``table`` the error is about: its `id` column (a record's `_soupEntryId`).
    public var row: Int64?
    /// The underlying error, such as a `JSONParseError`, a `SyncError` or a `JournalError`.
    public var cause: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: the sentence people read.
    ///   - table: the table involved, if any.
    ///   - row: the row of `table` involved, if any.
    ///   - cause: the underlying error, if any.
    public init(_ code: Code, _ message: String, table: String? = nil, row: Int64? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.table = table
        self.row = row
        self.cause = cause
    }

    /// The ``message``.
    public var description: String {
        message
    }

    /// Whether the file or the target store is at fault (bad input) rather than storage.
    public var isBadInput: Bool {
        code != .storage
    }

    /// The kind of a ``SmartStoreImportError``. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case unreadable, notADatabase, notASmartStore, malformedSoup, malformedRecord, malformedSync, unsupported,
                storeNotEmpty, storage
        }

        private let value: Value

        /// The file does not exist, is not a regular file, or cannot be opened.
        public static let unreadable = Code(value: .unreadable)
        /// The file is not an SQLite database, or is one SQLCipher still encrypts.
        public static let notADatabase = Code(value: .notADatabase)
        /// The file is an SQLite database without SmartStore's tables.
        public static let notASmartStore = Code(value: .notASmartStore)
        /// A row of `soup_attrs` or `soup_index_map` is unusable: no name, an unknown index type.
        public static let malformedSoup = Code(value: .malformedSoup)
        /// A record of a soup table does not parse: no JSON object, no dates.
        public static let malformedRecord = Code(value: .malformedRecord)
        /// A sync of `syncs_soup` does not parse as a sync state.
        public static let malformedSync = Code(value: .malformedSync)
        /// The database uses a feature this import does not read: soups in external storage.
        public static let unsupported = Code(value: .unsupported)
        /// The target store already has entries; an import only starts a store.
        public static let storeNotEmpty = Code(value: .storeNotEmpty)
        /// Reading the file or writing the store failed; see ``SmartStoreImportError/cause``.
        public static let storage = Code(value: .storage)

        /// The code's name, such as `malformedRecord`.
        public var description: String {
            value.rawValue
        }

        /// Matches an error against a code: `catch SmartStoreImportError.Code.malformedRecord`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SmartStoreImportError)?.code == code
        }
    }
}
