public import Foundation
import LMDBStore
import Synchronization

extension Journal {
    /// Checks the journal and its projections.
    ///
    /// Reads every entry from the horizon on (checking each checksum and that no sequence is
    /// missing), folds them into fresh projections in a scratch environment (starting from the
    /// horizon's state, the anchor, when the journal was compacted), and compares every projection
    /// database and the kind counts key by key with the stored state. Everything is read from
    /// one snapshot, so appends may continue meanwhile.
    /// - Parameters:
    ///   - scratchDirectory: where to build the scratch environment; a new directory in the
    ///     system's temporary directory by default. It is removed afterwards.
    ///   - checkpointDirectory: when given, the fold also leaves the checkpoints that
    ///     ``withState(asOf:checkpointDirectory:checkpointInterval:_:)`` reads there, so that
    ///     every later question about the past folds at most one interval of entries.
    ///   - checkpointInterval: the checkpoints' spacing, as in `withState`.
    ///   - progress: called with (entries folded, entries to fold) as the fold advances.
    /// - Returns: the first divergent key of each database that differs.
    /// - Throws: ``JournalError/Code/damagedJournal`` for a damaged journal, naming its file
    ///   and what salvages the store (decision 0027).
    public func verify(
        scratchDirectory: URL? = nil, checkpointDirectory: URL? = nil,
        checkpointInterval: UInt64 = Journal.checkpointIntervalDefault,
        progress: ((_ folded: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws -> VerificationReport {
        let scratch = scratchDirectory ?? Self.scratchDirectoryURL()
        defer { try? FileManager.default.removeItem(at: scratch) }
        return try Self.guarded("cannot verify the journal") {
            let destination = try ProjectionStore(
                projections: projections, in: scratchEnvironment(scratch))
            return try read { reader in
                let last = try reader.lastSequence
                // A compacted journal is checked from the anchor, the horizon's state: the state its
                // first entry continues.
                try startFromHorizon(try reader.horizon, destination)
                let checkpoints = checkpointDirectory.map(checkpointStore(in:))
                _ = try fold(
                    from: reader, upTo: last, into: destination,
                    boundary: checkpoints == nil ? nil : checkpointInterval,
                    reachedBoundary: { _ in try checkpoints?.save(destination.environment) }, progress: progress)
                var divergences: [VerificationReport.Divergence] = []
                try destination.environment.read { rebuilt in
                    let pairs = store.databases.keys.sorted().compactMap { name in
                        store.databases[name].flatMap { stored in destination.databases[name].map { (name, stored, $0) }
                        }
                    }
                    for (name, stored, rebuiltDatabase) in pairs + [
                        (Self.kindsDatabaseName, store.kinds, destination.kinds)
                    ] {
                        let sameState = sameStateCheck(
                            database: name, stored: store.context(reader.transaction),
                            rebuilt: destination.context(rebuilt))
                        if let divergence = try Self.firstDivergence(
                            name, stored: (reader.transaction, stored), rebuilt: (rebuilt, rebuiltDatabase),
                            sameState: sameState)
                        {
                            divergences.append(divergence)
                        }
                    }
                }
                // The journal's own structure is damage nothing rebuilds: refused like any
                // other journal damage, naming its file and `recover` (decision 0027).
                if let damage = try Self.firstStructuralDamage(
                    Self.entriesDatabaseName, entries, in: try reader.entryTransaction())
                {
                    throw layout.damagedJournalError(
                        "a lookup of its entries does not find what a walk finds (\(damage))", opened: true,
                        cause: JournalError(.corruptEntry, "\(damage)"))
                }
                return VerificationReport(lastSequence: last, divergences: divergences)
            }
        }
    }

    /// Walks two databases in key order together and returns the first key where they differ,
    /// or where the stored database is damaged in its structure.
    ///
    /// A walk in key order goes from leaf to leaf, and a lookup by key descends through the
    /// branch pages: a damaged branch page can hide records from every lookup (a query) while
    /// the walk still sees them all. So each stored key is also looked up, and must be found
    /// where the walk found it, in ascending order; O(log n) more per key.
    ///
    /// Values whose bytes differ are the same when `sameState` says so (a projection's other
    /// encoding of one state, ``Projection/holdSameState(database:key:stored:in:rebuilt:in:)``).
    static func firstDivergence(
        _ name: String, stored: (Transaction, Database), rebuilt: (Transaction, Database),
        sameState: (_ key: [UInt8], _ stored: [UInt8], _ rebuilt: [UInt8]) throws -> Bool = { _, _, _ in false }
    ) throws -> VerificationReport.Divergence? {
        try stored.0.withCursor(stored.1) { storedCursor in
            try rebuilt.0.withCursor(rebuilt.1) { rebuiltCursor in
                var walk = StructureWalk(name, stored.1, in: stored.0)
                var left = try walk.checked(storedCursor.first())
                var right = try rebuiltCursor.first()
                while left != nil || right != nil {
                    if let damage = walk.damage { return damage }
                    switch (left, right) {
                    case (let l?, let r?) where l.key == r.key:
                        if l.value != r.value, try !sameState(l.key, l.value, r.value) {
                            return .init(database: name, key: l.key, stored: l.value, rebuilt: r.value)
                        }
                        left = try walk.checked(storedCursor.next())
                        right = try rebuiltCursor.next()
                    case (let l?, let r?):
                        return l.key.lexicographicallyPrecedes(r.key)
                            ? .init(database: name, key: l.key, stored: l.value, rebuilt: nil)
                            : .init(database: name, key: r.key, stored: nil, rebuilt: r.value)
                    case (let l?, nil):
                        return .init(database: name, key: l.key, stored: l.value, rebuilt: nil)
                    case (nil, let r?):
                        return .init(database: name, key: r.key, stored: nil, rebuilt: r.value)
                    case (nil, nil):
                        return nil
                    }
                }
                return walk.damage
            }
        }
    }

    /// Whether two values of database `name`, in the states `stored` and `rebuilt`, are the
    /// same state, as the projection that declares `name` says.
    func sameStateCheck(database name: String, stored: ProjectionContext, rebuilt: ProjectionContext) -> (
        [UInt8], [UInt8], [UInt8]
    ) throws -> Bool {
        guard let projection = projections.first(where: { $0.databaseNames.contains(name) }) else {
            return { _, _, _ in false }
        }
        return { key, storedValue, rebuiltValue in
            try projection.holdSameState(
                database: name, key: key, stored: storedValue, in: stored, rebuilt: rebuiltValue, in: rebuilt)
        }
    }

    /// The first structural damage of `database` (see ``StructureWalk``), reading keys only.
    static func firstStructuralDamage(_ name: String, _ database: Database, in transaction: Transaction) throws
        -> VerificationReport.Divergence?
    {
        try transaction.withCursor(database) { walker in
            var walk = StructureWalk(name, database, in: transaction)
            try walker.forEachInPlace { key, _ in
                _ = try walk.checked((Array(key), []))
                return walk.damage == nil
            }
            return walk.damage
        }
    }

    /// Checks, key by key, that a walk in key order meets its keys ascending and that a lookup
    /// finds each (see ``firstDivergence(_:stored:rebuilt:)``).
    ///
    /// Each lookup descends from the root (`mdb_get`): a cursor already on a page would search
    /// that page first, and, following the walk, would find what the walk found.
    struct StructureWalk {
        let name: String
        let database: Database
        let transaction: Transaction
        private var previousKey: [UInt8]?
        /// The first damage met, if any.
        private(set) var damage: VerificationReport.Divergence?

        init(_ name: String, _ database: Database, in transaction: Transaction) {
            self.name = name
            self.database = database
            self.transaction = transaction
        }

        /// Whether a lookup of `key` from the root finds it; a lookup that LMDB's neighbour check
        /// finds misrouted (`MDB_CORRUPTED`) did not.
        private func isFound(_ key: [UInt8]) throws -> Bool {
            do {
                return try transaction.withValue(database.unsealed, key: key) { $0 != nil }
            } catch let error as LMDBError where error == .corrupted {
                return false
            }
        }

        /// `entry`, after checking it follows the previous key and a lookup finds it.
        mutating func checked(_ entry: (key: [UInt8], value: [UInt8])?) throws -> (key: [UInt8], value: [UInt8])? {
            guard let entry, damage == nil else { return entry }
            if let previousKey, !previousKey.lexicographicallyPrecedes(entry.key) {
                damage = .init(
                    database: name, key: entry.key, stored: entry.value, rebuilt: nil, structure: .outOfOrder)
            } else if try !isFound(entry.key) {
                damage = .init(
                    database: name, key: entry.key, stored: entry.value, rebuilt: nil, structure: .unreachable)
            }
            previousKey = entry.key
            return entry
        }
    }

    /// A fresh, empty directory under the system's temporary directory, named by the process
    /// id and a counter, without randomness. Creating it is the claim: a killed process whose id
    /// was reused may have left a directory of the same name, which is skipped, not reused.
    static func scratchDirectoryURL() -> URL {
        while true {
            let serial = scratchCounter.add(1, ordering: .relaxed).newValue
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
                "syncjournal-scratch-\(ProcessInfo.processInfo.processIdentifier)-\(serial)", isDirectory: true)
            do {
                try FileManager.default.createDirectory(
                    at: scratch, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                return scratch
            } catch {
                // Any failure but a leftover is reported by the first use of the directory.
                guard FileManager.default.fileExists(atPath: scratch.path) else { return scratch }
            }
        }
    }
}
