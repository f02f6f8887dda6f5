import EventJournal

extension SyncStore {
    /// The state of the sync with `id`, or `nil` when there is none.
    ///
    /// - Throws: `JournalError` when the store cannot be read.
    public func syncState(id: Int64) throws -> SyncState? {
        try readSyncs { try $0.state(id: id) }
    }

    /// The state of the sync named `name`, or `nil` when there is none.
    ///
    /// - Throws: `JournalError` when the store cannot be read.
    public func syncState(named name: String) throws -> SyncState? {
        try readSyncs { databases in try databases.syncId(named: name).flatMap { try databases.state(id: $0) } }
    }

    /// Every sync's state, by ascending id.
    ///
    /// - Throws: `JournalError` when the store cannot be read.
    public func syncStates() throws -> [SyncState] {
        try readSyncs { try $0.allStates() }
    }

    func readSyncs<T>(_ body: (SyncStateDatabases) throws -> T) throws -> T {
        try journal.read { reader in try body(SyncStateDatabases(reader.transaction, reader.database)) }
    }
}
