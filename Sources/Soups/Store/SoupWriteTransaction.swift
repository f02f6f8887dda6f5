import EventJournal
public import LosslessJSON

/// The writes of one ``SoupStore/write(_:)`` call: creates, updates, upserts and deletes across
/// soups that commit together or not at all (Android SmartStore's `beginTransaction` …
/// `setTransactionSuccessful`).
///
/// Each method does what the ``SoupStore`` method of the same name does, and sees the writes made
/// before it in the same transaction. Every write is its own journal entry, so history and
/// `blame` still name each one; all of them are appended in one journal commit, so a crash, a
/// full disk or an error thrown by any write or by the closure leaves none of them, and
/// observers are woken once, after the commit. A transaction is valid only inside the closure
/// it was given to: a use after that throws ``SoupError/Code/transactionEnded``.
public final class SoupWriteTransaction {
    private let store: SoupStore
    private let writer: UnsafeMutablePointer<JournalWriter>
    private let state: SoupState
    private var hasEnded = false

    init(store: SoupStore, writer: UnsafeMutablePointer<JournalWriter>, state: SoupState) {
        self.store = store
        self.writer = writer
        self.state = state
    }

    func end() {
        hasEnded = true
    }

    private func perform<T>(_ body: (inout JournalWriter, SoupState) throws -> T) throws -> T {
        guard !hasEnded else {
            throw SoupError(.transactionEnded, "a soup write transaction was used after its write(_:) call returned")
        }
        do {
            return try body(&writer.pointee, state)
        } catch {
            throw SoupStore.wrap(error)
        }
    }

    /// Saves new records; see ``SoupStore/create(_:_:)->[JSONValue]``.
    @discardableResult
    public func create(_ soup: String, _ records: [JSONValue]) throws -> [JSONValue] {
        try perform { try store.create(soup, records, writer: &$0, state: $1) }
    }

    /// Saves one new record; see ``SoupStore/create(_:_:)->JSONValue``.
    @discardableResult
    public func create(_ soup: String, _ record: JSONValue) throws -> JSONValue {
        try create(soup, [record])[0]
    }

    /// Replaces a record whole; see ``SoupStore/update(_:_:entryId:)``.
    @discardableResult
    public func update(_ soup: String, _ record: JSONValue, entryId: Int64) throws -> JSONValue {
        try perform { try store.update(soup, record, entryId: entryId, writer: &$0, state: $1) }
    }

    /// Creates or replaces records; see ``SoupStore/upsert(_:_:externalIdPath:)->[JSONValue]``.
    @discardableResult
    public func upsert(_ soup: String, _ records: [JSONValue], externalIdPath: String? = nil) throws -> [JSONValue] {
        try perform { try store.upsert(soup, records, externalIdPath: externalIdPath, writer: &$0, state: $1) }
    }

    /// Creates or replaces one record; see ``SoupStore/upsert(_:_:externalIdPath:)->JSONValue``.
    @discardableResult
    public func upsert(_ soup: String, _ record: JSONValue, externalIdPath: String? = nil) throws -> JSONValue {
        try upsert(soup, [record], externalIdPath: externalIdPath)[0]
    }

    /// Deletes records by `_soupEntryId`; see ``SoupStore/delete(_:ids:)``.
    public func delete(_ soup: String, ids: [Int64]) throws {
        try perform { try store.delete(soup, ids: ids, writer: &$0, state: $1) }
    }

    /// Creates a record as a local change; see ``SoupStore/createLocally(_:_:idPath:)``.
    @discardableResult
    public func createLocally(_ soup: String, _ record: JSONValue, idPath: String = "Id") throws -> JSONValue {
        try perform { try store.createLocally(soup, record, idPath: idPath, writer: &$0, state: $1) }
    }

    /// Merges changes into a record as a local change; see
    /// ``SoupStore/updateLocally(_:entryId:changes:)``.
    @discardableResult
    public func updateLocally(_ soup: String, entryId: Int64, changes: [String: JSONValue]) throws -> JSONValue {
        try perform { try store.updateLocally(soup, entryId: entryId, changes: changes, writer: &$0, state: $1) }
    }

    /// Marks a record deleted locally; see ``SoupStore/deleteLocally(_:entryId:)``.
    @discardableResult
    public func deleteLocally(_ soup: String, entryId: Int64) throws -> JSONValue {
        try perform { writer, state in
            try store.changeLocally(soup, entryId: entryId, writer: &writer, state: state) {
                LocalFlags.markedDeleted($0)
            }
        }
    }

    /// The records with these `_soupEntryId`s as this transaction sees them (its own writes
    /// included); see ``SoupStore/retrieve(_:ids:)``.
    public func retrieve(_ soup: String, ids: [Int64]) throws -> [JSONValue] {
        try perform { _, state in
            let catalog = try state.requireSoup(soup)
            return try ids.compactMap { try state.record(catalog.soupId, $0) }
        }
    }
}
