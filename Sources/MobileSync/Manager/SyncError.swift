public import EventJournal

/// An error from Mobile Sync: bad input (a target, a query, a config file, a journal entry) or a
/// sync operation refused by the rules of the sync manager.
///
/// ```swift
/// do { _ = try SOQLQuery(parsing: text) }
/// catch SyncError.Code.malformedQuery { … }
/// ```
public struct SyncError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for code that reacts to it.
    public var code: Code
    /// What went wrong, for people: one sentence naming the entry, field or sync involved.
    public var message: String
    /// The underlying error, such as a `JSONParseError`.
    public var cause: (any Error)?
    /// Where in SyncJournal the error was raised.
    public var location: SourceCodeLocation

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil, fileID: String = #fileID, line: Int = #line)
    {
        self.code = code
        self.message = message
        self.cause = cause
        self.location = SourceCodeLocation(fileID: fileID, line: line)
    }

    /// The message.
    public var description: String {
        message
    }

    /// The kind of a ``SyncError``. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case malformedJSON, malformedTarget, malformedOptions, malformedState, malformedQuery, malformedConfig,
                malformedEntry, duplicateName, invalidName, syncNotFound, syncRunning, managerStopped, wrongType,
                unknownTarget, notConnected, invalidRecords, leaseUnavailable, incompleteRemoteIds, fetchFailed,
                unsupportedMergeMode, noConflict
        }

        private let value: Value

        /// Input that should be JSON is not, or is not the expected JSON type.
        public static let malformedJSON = Code(value: .malformedJSON)
        /// A target descriptor is missing a key, has a wrong type, or names an unknown target type.
        public static let malformedTarget = Code(value: .malformedTarget)
        /// Sync options are missing a key or have a wrong value.
        public static let malformedOptions = Code(value: .malformedOptions)
        /// A persisted sync state is missing a key or has a wrong value.
        public static let malformedState = Code(value: .malformedState)
        /// A SOQL query cannot be tokenized or rebuilt (unbalanced quote or parenthesis, no table).
        public static let malformedQuery = Code(value: .malformedQuery)
        /// A `usersyncs.json` or `globalsyncs.json` document is not in the Mobile SDK format.
        public static let malformedConfig = Code(value: .malformedConfig)
        /// A journal entry is not a well-formed Mobile Sync entry.
        public static let malformedEntry = Code(value: .malformedEntry)
        /// Another sync already has the requested name.
        public static let duplicateName = Code(value: .duplicateName)
        /// A sync name is empty.
        public static let invalidName = Code(value: .invalidName)
        /// No sync has the requested id or name.
        public static let syncNotFound = Code(value: .syncNotFound)
        /// The sync is running or queued, so it cannot be started or cleaned again.
        public static let syncRunning = Code(value: .syncRunning)
        /// The sync manager is stopping or stopped and accepts no sync.
        public static let managerStopped = Code(value: .managerStopped)
        /// The operation needs a sync of the other type (ghost cleaning needs a sync down).
        public static let wrongType = Code(value: .wrongType)
        /// A custom target is named that no ``SyncDownTargetRegistry`` entry makes.
        public static let unknownTarget = Code(value: .unknownTarget)
        /// The operation needs a Salesforce connection and the manager has none.
        public static let notConnected = Code(value: .notConnected)
        /// Records to sync up cannot be sent as asked (a bulk check over several sObject types).
        public static let invalidRecords = Code(value: .invalidRecords)
        /// A sync's lease in the store's `leases` folder cannot be created, opened or locked (the
        /// folder is not writable, or the system refuses file locks): a store problem, not a sync
        /// running elsewhere, which is ``syncRunning``.
        public static let leaseUnavailable = Code(value: .leaseUnavailable)
        /// The server could not list every remote id (a briefcase rule failed), so ghost
        /// cleaning deletes nothing.
        public static let incompleteRemoteIds = Code(value: .incompleteRemoteIds)
        /// A layout or metadata fetch needed the server, its sync failed, and nothing was cached.
        public static let fetchFailed = Code(value: .fetchFailed)

        /// The sync's target does not support its merge mode (MERGE_FIELDS on a parent/children
        /// or briefcase target).
        public static let unsupportedMergeMode = Code(value: .unsupportedMergeMode)
        /// A conflict to resolve is not open: no record, or a record without a conflict.
        public static let noConflict = Code(value: .noConflict)

        /// The code's name, such as `malformedQuery`.
        public var description: String {
            value.rawValue
        }

        /// Matches an error against a code: `catch SyncError.Code.malformedQuery`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SyncError)?.code == code
        }
    }
}
