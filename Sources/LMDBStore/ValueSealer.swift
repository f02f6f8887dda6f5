/// Seals values before LMDB stores them and opens them when they are read back: encryption at
/// rest for an ``Environment``.
///
/// LMDBStore knows no cipher; a higher layer supplies one (EventJournal's store cipher). Keys
/// are stored as they are, since LMDB orders them byte by byte: only values are sealed. Each
/// call receives the value's key and database name so that a sealer can bind a value to its
/// place (as authenticated data), and a value copied under another key fails to open.
public protocol ValueSealer: Sendable {
    /// Whether the values of the database named `name` are sealed. Asked once, when the
    /// database's handle is opened; a database left unsealed holds its values as given.
    func seals(databaseNamed name: String) -> Bool

    /// The bytes to store for `value` under `key` in the database named `database`.
    func seal(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8]

    /// The value that was sealed as `sealed` under `key` in the database named `database`.
    ///
    /// - Throws: the sealer's own error when the bytes fail authentication (changed, moved
    ///   from another key, or sealed under a key the sealer does not hold).
    func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8]

    /// Calls `body` with the value sealed as `sealed` under `key` in the database named
    /// `database`, valid only during `body`.
    ///
    /// The default opens a copy with ``open(_:key:database:)``. A sealer whose stored bytes
    /// contain the value as it is (a checksum beside it) passes a slice of `sealed` instead,
    /// so reads that need no copy still make none.
    /// - Throws: what ``open(_:key:database:)`` throws, or what `body` throws.
    func withOpened<T>(
        _ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T

    /// A keyed digest of `bytes`, the same for the same bytes for the life of the store: what a
    /// key holds in place of a value that must not be stored in the clear (an index of a
    /// sensitive field, matched exactly).
    func keyedDigest(of bytes: [UInt8]) -> [UInt8]
}

extension ValueSealer {
    /// Opens a copy of the value and calls `body` with it.
    public func withOpened<T>(
        _ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        try open(sealed, key: key, database: database).withUnsafeBytes { try body($0) }
    }
}

/// A ``ValueSealer`` whose sealing cannot fail and whose sealed size follows from the value's:
/// a put has LMDB make room for the sealed value in its page (`MDB_RESERVE`) and seals into
/// it, so the sealed bytes are never built on the heap and copied.
public protocol InPlaceValueSealer: ValueSealer {
    /// The size of the bytes ``ValueSealer/seal(_:key:database:)`` gives for a value of
    /// `count` bytes.
    func sealedByteCount(forValueByteCount count: Int) -> Int

    /// Writes into `output`, which has exactly ``sealedByteCount(forValueByteCount:)`` bytes,
    /// what ``ValueSealer/seal(_:key:database:)`` gives.
    func seal(
        _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        into output: UnsafeMutableRawBufferPointer)
}
