/// An error from the soup store: bad input, an unknown soup, or storage trouble.
///
/// Every operation that throws leaves the store unchanged.
///
/// ```swift
/// do { try store.query(spec) }
/// catch SoupError.Code.noIndexForPath { … }
/// ```
public struct SoupError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for code that reacts to it.
    public var code: Code
    /// What went wrong, for people: one sentence naming the soup, path or record involved.
    public var message: String
    /// The underlying error, such as a `JournalError` or a `JSONParseError`.
    public var cause: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The ``message``.
    public var description: String {
        message
    }

    /// The kind of a ``SoupError``. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case unknownSoup, noIndexForPath, externalIdPathNotIndexed, notAnObject, emptyIndexSpecs,
                invalidIndexSpec, invalidSoupName, unknownEntry, duplicateExternalId, invalidQuery, invalidConfig,
                invalidSmartSQL, transactionEnded, storage
        }

        private let value: Value

        /// No soup has the given name.
        public static let unknownSoup = Code(value: .unknownSoup)
        /// A query filters on a path that has no index in the soup.
        public static let noIndexForPath = Code(value: .noIndexForPath)
        /// An upsert names an external-id path that has no index in the soup.
        public static let externalIdPathNotIndexed = Code(value: .externalIdPathNotIndexed)
        /// A record is not a JSON object.
        public static let notAnObject = Code(value: .notAnObject)
        /// A soup was registered or altered with no index specs.
        public static let emptyIndexSpecs = Code(value: .emptyIndexSpecs)
        /// An index spec has an empty path, repeats a path, or is otherwise unusable.
        public static let invalidIndexSpec = Code(value: .invalidIndexSpec)
        /// A soup name is empty or too long.
        public static let invalidSoupName = Code(value: .invalidSoupName)
        /// No record has the given `_soupEntryId` in the soup.
        public static let unknownEntry = Code(value: .unknownEntry)
        /// An upsert by external id found more than one record with that id.
        public static let duplicateExternalId = Code(value: .duplicateExternalId)
        /// A query spec is malformed: bad page size or index, bad match expression.
        public static let invalidQuery = Code(value: .invalidQuery)
        /// A `userstore.json` or `globalstore.json` file is malformed.
        public static let invalidConfig = Code(value: .invalidConfig)
        /// A smart query is not one SmartStore would run: not a `SELECT`, a malformed `{…}`
        /// reference, arguments that do not match its `?`s, or SQL that SQLite refuses (the
        /// message carries SQLite's).
        public static let invalidSmartSQL = Code(value: .invalidSmartSQL)
        /// A ``SoupWriteTransaction`` was used after the ``SoupStore/write(_:)`` call that made
        /// it returned.
        public static let transactionEnded = Code(value: .transactionEnded)
        /// The journal or LMDB failed; see ``SoupError/cause``.
        public static let storage = Code(value: .storage)

        /// The code's name, such as `unknownSoup`.
        public var description: String {
            value.rawValue
        }

        /// Matches an error against a code, so callers can write `catch SoupError.Code.unknownSoup`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SoupError)?.code == code
        }
    }
}
