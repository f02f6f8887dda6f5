import Determinism
import EventJournal
public import LosslessJSON

extension SoupStore {
    /// Creates a record as a local change: `__local__` and `__locally_created__` are `true`,
    /// and when the record has no value at `idPath` it gets a local id `local_<n>`.
    ///
    /// Mobile SDK leaves these flags to the app, a known source of lost edits; these helpers
    /// set them the way Mobile Sync's sync up reads them.
    /// - Returns: the record as stored.
    @discardableResult
    public func createLocally(_ soup: String, _ record: JSONValue, idPath: String = "Id") throws -> JSONValue {
        try mutate { writer, state in try createLocally(soup, record, idPath: idPath, writer: &writer, state: state) }
    }

    func createLocally(
        _ soup: String, _ record: JSONValue, idPath: String, writer: inout JournalWriter, state: SoupState
    ) throws -> JSONValue {
        guard case .object(var fields) = record else { throw Self.notAnObject(soup) }
        if fields[idPath] == nil || fields[idPath] == .null {
            fields[idPath] = .string(LocalFlags.localIdPrefix + String(idGenerator.next()))
        }
        return try create(soup, [.object(LocalFlags.markedCreated(fields))], writer: &writer, state: state)[0]
    }

    /// Merges `changes` into the record with `entryId` as a local change: `__local__` and
    /// `__locally_updated__` become `true`; `__locally_created__` is kept.
    /// - Throws: ``SoupError/Code/unknownEntry``, ``SoupError/Code/unknownSoup``.
    @discardableResult
    public func updateLocally(_ soup: String, entryId: Int64, changes: [String: JSONValue]) throws -> JSONValue {
        try mutate { writer, state in
            try updateLocally(soup, entryId: entryId, changes: changes, writer: &writer, state: state)
        }
    }

    func updateLocally(
        _ soup: String, entryId: Int64, changes: [String: JSONValue], writer: inout JournalWriter, state: SoupState
    ) throws -> JSONValue {
        try changeLocally(soup, entryId: entryId, writer: &writer, state: state) { current in
            var fields = current
            fields.merge(changes) { _, new in new }
            return LocalFlags.markedUpdated(fields)
        }
    }

    /// Marks the record with `entryId` as deleted locally: `__local__` and
    /// `__locally_deleted__` become `true`. The record stays until sync up deletes it.
    /// - Throws: ``SoupError/Code/unknownEntry``, ``SoupError/Code/unknownSoup``.
    @discardableResult
    public func deleteLocally(_ soup: String, entryId: Int64) throws -> JSONValue {
        try mutate { writer, state in
            try changeLocally(soup, entryId: entryId, writer: &writer, state: state) { LocalFlags.markedDeleted($0) }
        }
    }

    func changeLocally(
        _ soup: String, entryId: Int64, writer: inout JournalWriter, state: SoupState,
        _ change: ([String: JSONValue]) -> [String: JSONValue]
    ) throws -> JSONValue {
        let catalog = try state.requireSoup(soup)
        guard case .object(let fields) = try state.record(catalog.soupId, entryId) else {
            throw SoupError(.unknownEntry, "soup '\(soup)' has no record with _soupEntryId \(entryId)")
        }
        let stored = try stamped(.object(change(fields)), entryId: entryId, at: clock.now(), soup: soup)
        try save([stored], in: catalog, to: &writer)
        return stored
    }
}
