import LMDBStore
import LosslessJSON

/// The sync-state projection's databases seen through one transaction, shared by the fold and
/// by the engine's reads so that both agree on the layout (see `SyncStateProjection`).
struct SyncStateDatabases {
    let transaction: Transaction
    let states: Database
    let names: Database
    let ghosts: Database
    let meta: Database

    static let names = ["syncs.states", "syncs.names", "syncs.ghosts", "syncs.meta"]
    static let nextSyncIdKey = Array("next-sync-id".utf8)

    init(_ transaction: Transaction, _ database: (String) -> Database) {
        self.transaction = transaction
        states = database("syncs.states")
        names = database("syncs.names")
        ghosts = database("syncs.ghosts")
        meta = database("syncs.meta")
    }

    // MARK: - Reading

    func state(id: Int64) throws -> SyncState? {
        guard let bytes = try transaction.get(states, key: Self.key(id)) else { return nil }
        return try SyncState(json: Self.parse(bytes))
    }

    func syncId(named name: String) throws -> Int64? {
        try transaction.get(names, key: Array(name.utf8)).map { Int64(bitPattern: Self.decode($0)) }
    }

    /// Every state, by ascending id.
    func allStates() throws -> [SyncState] {
        var result: [SyncState] = []
        try transaction.withCursor(states) { cursor in
            try cursor.forEach { _, value in
                result.append(try SyncState(json: Self.parse(value)))
                return true
            }
        }
        return result
    }

    /// The id the next new sync gets: one more than any id ever used, starting at 1.
    func nextSyncId() throws -> Int64 {
        try transaction.get(meta, key: Self.nextSyncIdKey).map { Int64(bitPattern: Self.decode($0)) } ?? 1
    }

    func ghostCleaning(id: Int64) throws -> JSONValue? {
        try transaction.get(ghosts, key: Self.key(id)).map(Self.parse)
    }

    // MARK: - Writing (the fold only)

    func put(_ state: SyncState) throws {
        try transaction.put(states, key: Self.key(state.id), value: state.json.serialized())
        if let name = state.name { try transaction.put(names, key: Array(name.utf8), value: Self.key(state.id)) }
    }

    func delete(id: Int64) throws {
        guard let state = try state(id: id) else { return }
        _ = try transaction.delete(states, key: Self.key(id))
        _ = try transaction.delete(ghosts, key: Self.key(id))
        if let name = state.name { _ = try transaction.delete(names, key: Array(name.utf8)) }
    }

    func putNextSyncId(_ id: Int64) throws {
        try transaction.put(meta, key: Self.nextSyncIdKey, value: Self.key(id))
    }

    func putGhostCleaning(id: Int64, summary: JSONValue) throws {
        guard try state(id: id) != nil else { return }
        try transaction.put(ghosts, key: Self.key(id), value: summary.serialized())
    }

    // MARK: - Encoding

    /// Big-endian, so that byte order is id order.
    static func key(_ id: Int64) -> [UInt8] {
        withUnsafeBytes(of: UInt64(bitPattern: id).bigEndian, Array.init)
    }

    static func decode(_ bytes: [UInt8]) -> UInt64 {
        bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func parse(_ bytes: [UInt8]) throws(SyncError) -> JSONValue {
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw SyncError(.malformedState, "A stored sync state is not JSON.", cause: error)
        }
    }
}
