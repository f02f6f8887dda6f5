import CLMDB

/// An error code returned by LMDB: one of the `MDB_*` codes, or a system `errno`.
///
/// ```swift
/// do { try environment.write { … } }
/// catch let error as LMDBError where error == .mapFull { … }
/// ```
public struct LMDBError: Error, RawRepresentable, Hashable, Sendable {
    /// The C return code.
    public let rawValue: Int32

    /// Wraps a C return code.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Key/data pair already exists (`MDB_KEYEXIST`).
    public static let keyExists = LMDBError(rawValue: CLMDB.MDB_KEYEXIST)
    /// No matching key/data pair found (`MDB_NOTFOUND`).
    public static let notFound = LMDBError(rawValue: CLMDB.MDB_NOTFOUND)
    /// Requested page not found: usually a corrupted database (`MDB_PAGE_NOTFOUND`).
    public static let pageNotFound = LMDBError(rawValue: CLMDB.MDB_PAGE_NOTFOUND)
    /// Located page was the wrong type (`MDB_CORRUPTED`).
    public static let corrupted = LMDBError(rawValue: CLMDB.MDB_CORRUPTED)
    /// Update of meta page failed or environment had a fatal error (`MDB_PANIC`).
    public static let panic = LMDBError(rawValue: CLMDB.MDB_PANIC)
    /// Environment version mismatch (`MDB_VERSION_MISMATCH`).
    public static let versionMismatch = LMDBError(rawValue: CLMDB.MDB_VERSION_MISMATCH)
    /// File is not a valid LMDB file (`MDB_INVALID`).
    public static let invalid = LMDBError(rawValue: CLMDB.MDB_INVALID)
    /// Environment map size reached (`MDB_MAP_FULL`).
    public static let mapFull = LMDBError(rawValue: CLMDB.MDB_MAP_FULL)
    /// Environment max named databases reached (`MDB_DBS_FULL`).
    public static let databasesFull = LMDBError(rawValue: CLMDB.MDB_DBS_FULL)
    /// Environment max readers reached (`MDB_READERS_FULL`).
    public static let readersFull = LMDBError(rawValue: CLMDB.MDB_READERS_FULL)
    /// Too many thread-local storage keys (`MDB_TLS_FULL`).
    public static let threadLocalStorageFull = LMDBError(rawValue: CLMDB.MDB_TLS_FULL)
    /// Transaction has too many dirty pages (`MDB_TXN_FULL`).
    public static let transactionFull = LMDBError(rawValue: CLMDB.MDB_TXN_FULL)
    /// Cursor stack too deep: internal error (`MDB_CURSOR_FULL`).
    public static let cursorFull = LMDBError(rawValue: CLMDB.MDB_CURSOR_FULL)
    /// Page has not enough space: internal error (`MDB_PAGE_FULL`).
    public static let pageFull = LMDBError(rawValue: CLMDB.MDB_PAGE_FULL)
    /// Database contents grew beyond the environment map size (`MDB_MAP_RESIZED`).
    public static let mapResized = LMDBError(rawValue: CLMDB.MDB_MAP_RESIZED)
    /// Operation and database incompatible, or database type changed (`MDB_INCOMPATIBLE`).
    public static let incompatible = LMDBError(rawValue: CLMDB.MDB_INCOMPATIBLE)
    /// Invalid reuse of reader lock table slot (`MDB_BAD_RSLOT`).
    public static let badReaderSlot = LMDBError(rawValue: CLMDB.MDB_BAD_RSLOT)
    /// Transaction must abort, has a child, or is invalid (`MDB_BAD_TXN`).
    public static let badTransaction = LMDBError(rawValue: CLMDB.MDB_BAD_TXN)
    /// Unsupported size of key, database name or data (`MDB_BAD_VALSIZE`).
    public static let badValueSize = LMDBError(rawValue: CLMDB.MDB_BAD_VALSIZE)
    /// The specified database handle was changed unexpectedly (`MDB_BAD_DBI`).
    public static let badDatabaseHandle = LMDBError(rawValue: CLMDB.MDB_BAD_DBI)

    @available(*, unavailable, renamed: "keyExists")
    public static var MDB_KEYEXIST: LMDBError { .keyExists }
    @available(*, unavailable, renamed: "notFound")
    public static var MDB_NOTFOUND: LMDBError { .notFound }
    @available(*, unavailable, renamed: "pageNotFound")
    public static var MDB_PAGE_NOTFOUND: LMDBError { .pageNotFound }
    @available(*, unavailable, renamed: "corrupted")
    public static var MDB_CORRUPTED: LMDBError { .corrupted }
    @available(*, unavailable, renamed: "panic")
    public static var MDB_PANIC: LMDBError { .panic }
    @available(*, unavailable, renamed: "versionMismatch")
    public static var MDB_VERSION_MISMATCH: LMDBError { .versionMismatch }
    @available(*, unavailable, renamed: "invalid")
    public static var MDB_INVALID: LMDBError { .invalid }
    @available(*, unavailable, renamed: "mapFull")
    public static var MDB_MAP_FULL: LMDBError { .mapFull }
    @available(*, unavailable, renamed: "databasesFull")
    public static var MDB_DBS_FULL: LMDBError { .databasesFull }
    @available(*, unavailable, renamed: "readersFull")
    public static var MDB_READERS_FULL: LMDBError { .readersFull }
    @available(*, unavailable, renamed: "threadLocalStorageFull")
    public static var MDB_TLS_FULL: LMDBError { .threadLocalStorageFull }
    @available(*, unavailable, renamed: "transactionFull")
    public static var MDB_TXN_FULL: LMDBError { .transactionFull }
    @available(*, unavailable, renamed: "cursorFull")
    public static var MDB_CURSOR_FULL: LMDBError { .cursorFull }
    @available(*, unavailable, renamed: "pageFull")
    public static var MDB_PAGE_FULL: LMDBError { .pageFull }
    @available(*, unavailable, renamed: "mapResized")
    public static var MDB_MAP_RESIZED: LMDBError { .mapResized }
    @available(*, unavailable, renamed: "incompatible")
    public static var MDB_INCOMPATIBLE: LMDBError { .incompatible }
    @available(*, unavailable, renamed: "badReaderSlot")
    public static var MDB_BAD_RSLOT: LMDBError { .badReaderSlot }
    @available(*, unavailable, renamed: "badTransaction")
    public static var MDB_BAD_TXN: LMDBError { .badTransaction }
    @available(*, unavailable, renamed: "badValueSize")
    public static var MDB_BAD_VALSIZE: LMDBError { .badValueSize }
    @available(*, unavailable, renamed: "badDatabaseHandle")
    public static var MDB_BAD_DBI: LMDBError { .badDatabaseHandle }

    /// Every LMDB-specific code (not the `errno` values LMDB passes through).
    public static let allLMDBCodes: [LMDBError] = [
        .keyExists, .notFound, .pageNotFound, .corrupted, .panic, .versionMismatch, .invalid, .mapFull,
        .databasesFull, .readersFull, .threadLocalStorageFull, .transactionFull, .cursorFull, .pageFull,
        .mapResized, .incompatible, .badReaderSlot, .badTransaction, .badValueSize, .badDatabaseHandle,
    ]

    /// Whether the disk or the map is out of space, so that freeing space may let a retry succeed.
    public var isStorageFull: Bool {
        self == .mapFull || rawValue == 28  // ENOSPC
    }
}

extension LMDBError: CustomStringConvertible {
    /// LMDB's own text for the code, from `mdb_strerror`.
    public var description: String {
        LMDBCalls.errorText(rawValue)
    }
}
