public import Foundation
import LMDBStore

// Re-keying an encrypted store (decision 0006). One synced commit re-wraps the store's keys
// under the new app key and adds a fresh data key; from then on only the new key opens the
// store. Every value is then sealed again under the fresh data key, batch by batch, and the
// last commit forgets the old data key. Values carry their key's generation, so a store
// interrupted anywhere in between reads whole with the new key, and rotating again finishes.
extension Journal {
    /// What a key rotation did.
    public struct KeyRotationReport: Sendable, Hashable {
        /// Whether this call finished a rotation that an earlier, interrupted call began.
        public var resumed: Bool
        /// Values of the journal, the projections and the anchor sealed again.
        public var valuesResealed: Int
        /// Checkpoints sealed again.
        public var checkpointsResealed: Int
        /// Whether the projections could not be opened (after a power loss, say) and were
        /// removed, to be restored from a checkpoint and the journal at the next open.
        public var projectionsRemoved: Bool
    }

    /// How far a key rotation has come.
    public struct KeyRotationProgress: Sendable, Hashable {
        /// What is being sealed again: `journal`, `projections` or `checkpoints`.
        public var part: String
        /// Values (or checkpoints) of that part done.
        public var done: Int
        /// Values (or checkpoints) of that part in all.
        public var total: Int
    }

    /// Re-encrypts the store in `directory` under `newKey`, crash-safe.
    ///
    /// Every entry, projection value and checkpoint is sealed again under a fresh data key,
    /// which `newKey` wraps. A process killed at any moment leaves a store that exactly one of
    /// the two keys opens, with nothing lost: `oldKey` until the first commit, `newKey` after
    /// it. Calling this again with the same keys finishes an interrupted rotation.
    ///
    /// The store must not be open anywhere else, in this process or another.
    /// - Parameters:
    ///   - directory: the store's directory (``StoreLayout``).
    ///   - oldKey: the key the store is encrypted with now.
    ///   - newKey: the key that opens the store afterwards.
    ///   - options: the options the store is opened with; their `environment` is used.
    ///   - batchSize: values sealed again per commit, so no transaction grows large.
    ///   - progress: called after each batch.
    /// - Throws: ``JournalError/Code/storeInUse`` while a journal has the store open;
    ///   ``JournalError/Code/wrongKey`` when neither key opens it;
    ///   ``JournalError/Code/notEncrypted`` for a plaintext store;
    ///   ``JournalError/Code/missingStore`` when `directory` holds no store;
    ///   ``JournalError/Code/damagedJournal`` when its journal file is damaged.
    @discardableResult
    public static func rotateKey(
        directory: URL, from oldKey: StoreKey, to newKey: StoreKey, options: JournalOptions = JournalOptions(),
        batchSize: Int = 2_000, progress: (@Sendable (KeyRotationProgress) -> Void)? = nil
    ) throws -> KeyRotationReport {
        precondition(batchSize > 0, "batchSize must be positive")
        let layout = StoreLayout(directory: directory)
        guard layout.holdsStore else { throw JournalError(.missingStore, "no journal store at \(directory.path)") }
        try layout.requireUndamagedJournal()
        let lock = try StoreLock(store: layout.directory, exclusive: true)
        defer { withExtendedLifetime(lock) {} }
        return try guarded("cannot re-key the store at \(layout.directory.path)") {
            let cipher = StoreCipher()
            let journalEnvironment = try Environment(
                directory: layout.journalDirectory, options: options.environment, sealer: cipher)
            let keys = try journalEnvironment.database(named: StoreCipher.keysDatabaseName)
            var report = KeyRotationReport(
                resumed: false, valuesResealed: 0, checkpointsResealed: 0, projectionsRemoved: false)
            var ring = try beginRotation(
                journalEnvironment, keys: keys, copy: KeyRecordCopy(in: layout), from: oldKey, to: newKey,
                resumed: &report.resumed)
            cipher.keyRing = ring
            let reseal = Resealing(batchSize: batchSize, progress: progress)
            report.valuesResealed += try reseal.environment(journalEnvironment, part: "journal")
            let projections = try resealProjections(layout, cipher: cipher, options: options, reseal: reseal)
            report.valuesResealed += projections ?? 0
            report.projectionsRemoved = projections == nil
            report.checkpointsResealed = try resealCheckpoints(layout, cipher: cipher, reseal: reseal)
            report.valuesResealed += try resealAnchor(layout, cipher: cipher, options: options, reseal: reseal)
            ring = ring.retiringOlderGenerations()
            let record = try ring.record(wrappedUnder: newKey)
            try journalEnvironment.write { transaction in
                try transaction.put(keys, key: StoreCipher.keyRecordKey, value: record)
            }
            try KeyRecordCopy(in: layout).write(record)
            return report
        }
    }

    /// The ring to seal under: the store's keys with a fresh generation, re-wrapped under
    /// `newKey` in one synced commit; or, when `newKey` already opens the store, its keys as
    /// they are (an interrupted rotation to finish).
    private static func beginRotation(
        _ environment: Environment, keys: Database, copy: KeyRecordCopy, from oldKey: StoreKey, to newKey: StoreKey,
        resumed: inout Bool
    ) throws -> StoreKeyRing {
        guard let record = try environment.read({ try $0.get(keys, key: StoreCipher.keyRecordKey) }) else {
            throw JournalError(
                .notEncrypted, "the store at \(environment.directory.path) is not encrypted: there is no key to rotate")
        }
        // The copy outside the journal follows every record committed, before any value is
        // sealed under a new generation: a journal lost from here on leaves a copy that opens
        // every value (decision 0026).
        if oldKey.symmetricKey != newKey.symmetricKey, let current = try? StoreKeyRing(record: record, appKey: newKey) {
            resumed = true
            try copy.keepInStep(with: record)
            return current
        }
        let ring = try StoreKeyRing(record: record, appKey: oldKey).addingGeneration()
        let rewrapped = try ring.record(wrappedUnder: newKey)
        try environment.write { transaction in
            try transaction.put(keys, key: StoreCipher.keyRecordKey, value: rewrapped)
        }
        try copy.write(rewrapped)
        return ring
    }

    /// Seals the projections again; `nil` when they do not open (left unsynced by a power
    /// loss, say) and were removed instead: they are recovered at the next open like any
    /// missing projections.
    private static func resealProjections(
        _ layout: StoreLayout, cipher: StoreCipher, options: JournalOptions, reseal: Resealing
    ) throws -> Int? {
        let files = FileManager.default
        try? files.removeItem(at: layout.restoringProjectionDirectory)
        guard files.fileExists(atPath: layout.projectionDirectory.appendingPathComponent("data.mdb").path) else {
            return 0
        }
        // Sealed again in place without a pin: the recorded snapshot's pages may be reused.
        try SyncedSnapshotRecord.remove(in: layout.projectionDirectory)
        do {
            let environment = try Environment(
                directory: layout.projectionDirectory, options: options.environment, sealer: cipher)
            return try reseal.environment(environment, part: "projections")
        } catch JournalError.Code.tampered {
            try files.removeItem(at: layout.projectionDirectory)
            try FileDurability.flushDirectory(layout.directory)
            return nil
        }
    }

    /// Seals the anchor again in place, a batch per synced commit: values sealed under either
    /// key open until the rotation records the new ring. Unlike the projections, an anchor
    /// that does not open is an error, not removed: it may hold the only state before the
    /// horizon.
    private static func resealAnchor(
        _ layout: StoreLayout, cipher: StoreCipher, options: JournalOptions, reseal: Resealing
    ) throws -> Int {
        let anchor = Anchor(in: layout, sealer: cipher, options: options.environment)
        guard anchor.exists else { return 0 }
        return try anchor.withEnvironment { try reseal.environment($0, part: "anchor") }
    }

    /// Seals every checkpoint again; one that is not whole is removed, as opening would.
    private static func resealCheckpoints(_ layout: StoreLayout, cipher: StoreCipher, reseal: Resealing) throws -> Int {
        let checkpoints = CheckpointStore(directory: layout.checkpointDirectory, signature: "", sealer: cipher)
        let sequences = checkpoints.sequences()
        let scratch = layout.checkpointDirectory.appendingPathComponent(
            "partial-\(ProcessInfo.processInfo.processIdentifier)-reseal", isDirectory: true)
        var done = 0
        for sequence in sequences {
            if try checkpoints.rewrite(sequence, scratch: scratch, { _ = try reseal.environment($0, part: nil) }) {
                done += 1
            } else {
                checkpoints.discard(sequence)
            }
            reseal.progress?(KeyRotationProgress(part: "checkpoints", done: done, total: sequences.count))
        }
        return done
    }

    /// Seals every value of an environment again, a batch per commit.
    private struct Resealing {
        let batchSize: Int
        let progress: (@Sendable (KeyRotationProgress) -> Void)?

        /// Seals every sealed database of `environment` again; returns how many values.
        func environment(_ environment: Environment, part: String?) throws -> Int {
            let names = try environment.read { try $0.databaseNames() }
            let databases = try names.map { try environment.database(named: $0) }.filter(\.isSealed)
            let total = try environment.read { transaction in
                try databases.reduce(0) { $0 + (try transaction.entryCount($1)) }
            }
            var done = 0
            for database in databases {
                var next: KeyRange? = .all
                while let range = next {
                    let batch = try environment.write { transaction in
                        var values: [(key: [UInt8], value: [UInt8])] = []
                        try transaction.withCursor(database) { cursor in
                            try cursor.forEach(in: range) { key, value in
                                values.append((key, value))
                                return values.count < batchSize
                            }
                        }
                        for (key, value) in values { try transaction.put(database, key: key, value: value) }
                        return values
                    }
                    done += batch.count
                    // The smallest key after the last one: the same bytes followed by a zero.
                    next = batch.count < batchSize ? nil : batch.last.map { KeyRange(from: $0.key + [0]) }
                    if let part { progress?(KeyRotationProgress(part: part, done: done, total: total)) }
                }
            }
            try environment.flush()
            return done
        }
    }
}
