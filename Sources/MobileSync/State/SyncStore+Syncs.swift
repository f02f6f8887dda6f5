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

// MARK: - Ownership

extension SyncStore {
    /// Whether a live process — this one or another — runs, queues, cleans or deletes the sync now.
    ///
    /// Reads only: it tests the sync's lease in the store's `leases` folder without taking it.
    ///
    /// - Throws: ``SyncError/Code/leaseUnavailable`` when an existing lease file cannot be tested.
    public func isSyncOwned(id: Int64) throws -> Bool {
        try leases.isHeld(syncId: id)
    }

    /// `state` as it stands now: a RUNNING sync that no live process owns (its process ended
    /// mid-run) reads STOPPED, which the next ``SyncManager`` opened on this store journals; every
    /// other state is returned as journaled.
    ///
    /// Reads only, so a status display can call it while another process syncs.
    ///
    /// - Throws: ``SyncError/Code/leaseUnavailable`` when an existing lease file cannot be tested.
    public func currentState(of state: SyncState) throws -> SyncState {
        guard state.status == .running, try !isSyncOwned(id: state.id) else { return state }
        var stopped = state
        stopped.stopAfterInterruptedRun()
        return stopped
    }
}
