import Foundation
package import LMDBStore
import Synchronization

/// The anchor of a compacted store: the projections' state as of the entry just before the
/// horizon, in an LMDB environment of its own (`<store>/anchor/`) that compaction folds forward
/// in synced commits (decision 0016).
///
/// It replaces the horizon's checkpoint copy: a compaction folds only the entries it removes
/// into it, with no restore and no new copy, so its cost does not grow with the store. Its
/// commits are synced, so a power loss leaves it at its last commit; its fold mark names the
/// entry it holds the state of, and a reader checks that mark against the journal before
/// using it.
///
/// The environment is opened for each use and closed after it. Uses of one anchor in a process
/// are serialized, so the process never has it open twice: LMDB forbids that, since closing
/// one of two handles drops the process's locks on the file. Between processes, LMDB's writer
/// lock orders the commits, and copies read a snapshot.
package struct Anchor {
    let directory: URL
    /// The store's seal: the anchor's values are sealed like the projections'.
    let sealer: (any ValueSealer)?
    let namedDatabaseCountMax: UInt32
    /// The map the environment opens with. LMDB sizes a map from this, not from the file, and
    /// redoes a commit that outgrows it whole after doubling it: a store passes the
    /// projections' map, so seeding or folding a large anchor in one commit is done once.
    let mapSizeBytes: Int

    /// The anchor of the store in `layout`, opened like the store's environments in `options`.
    init(
        in layout: StoreLayout, sealer: (any ValueSealer)?, options: EnvironmentOptions, mapSizeBytes: Int? = nil
    ) {
        directory = layout.anchorDirectory
        self.sealer = sealer
        namedDatabaseCountMax = options.namedDatabaseCountMax
        self.mapSizeBytes = mapSizeBytes ?? options.mapSizeBytes
    }

    var dataFile: URL {
        directory.appendingPathComponent(CheckpointStore.dataName)
    }

    /// Whether an anchor was ever written: opening for reading never creates one.
    var exists: Bool {
        StoreLayout.fileBytes(dataFile) ?? 0 > 0
    }

    /// Runs `body` with the anchor's environment, opened (and created when missing) for the call.
    package func withEnvironment<T>(_ body: (Environment) throws -> T) throws -> T {
        let lock = Self.lock(for: directory.standardizedFileURL.path)
        lock.lock()
        defer { lock.unlock() }
        // The environment is released when this scope ends, so it is closed under the lock.
        return try {
            var options = EnvironmentOptions()
            options.namedDatabaseCountMax = namedDatabaseCountMax
            options.mapSizeBytes = mapSizeBytes
            // Entries below the horizon exist nowhere else: every commit is synced.
            options.flushesOnCommit = true
            let environment = try Environment(directory: directory, options: options, sealer: sealer)
            return try body(environment)
        }()
    }

    /// The anchor's fold mark when it exists and holds the state of `signature`'s projections
    /// in this build's layout; `nil` otherwise.
    func foldMark(signature: String) throws -> FoldMark? {
        guard exists else { return nil }
        return try withEnvironment { try Self.foldMark(of: $0, signature: signature) }
    }

    /// The fold mark `environment` (shaped like the projections) records, when its layout and
    /// projections are `signature`'s in this build's layout.
    static func foldMark(of environment: Environment, signature: String) throws -> FoldMark? {
        let fold = try environment.database(named: ProjectionStore.foldDatabaseName)
        return try environment.read { transaction in
            var layout: [UInt8] = []
            layout.appendBigEndian(ProjectionStore.layoutVersion)
            guard try transaction.get(fold, key: ProjectionStore.layoutKey) == layout,
                try transaction.get(fold, key: ProjectionStore.signatureKey) == Array(signature.utf8)
            else { return nil }
            return try transaction.get(fold, key: ProjectionStore.foldedThroughKey).flatMap(FoldMark.init(bytes:))
        }
    }

    // MARK: - One handle per process

    private static let locks = Mutex<[String: NSLock]>([:])

    private static func lock(for path: String) -> NSLock {
        locks.withLock { locks in
            if let lock = locks[path] { return lock }
            let lock = NSLock()
            locks[path] = lock
            return lock
        }
    }
}
