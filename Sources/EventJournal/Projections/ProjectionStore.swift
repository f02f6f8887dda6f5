import LMDBStore

/// The projections' databases in one LMDB environment, with the record of how far they are
/// folded.
///
/// The store's own projections, a scratch fold for `verify` or `state --as-of`, and a
/// checkpoint all have this shape, so a checkpoint is simply a copy of the environment and
/// says itself which entry it ends at.
///
/// | database | key | value |
/// | --- | --- | --- |
/// | `journal.fold` | `folded-through` | sequence (`UInt64` BE) and CRC-32C (`UInt32` BE) of the last entry folded |
/// | | `layout` | ``layoutVersion`` (`UInt32` BE) |
/// | | `projections` | the projections' names and versions, `name@version` joined by commas |
/// | `journal.kinds` | kind name | entries of that kind folded (`UInt64` BE) |
/// | each projection's databases | the projection's business | |
struct ProjectionStore {
    /// The layout of this environment's bookkeeping and values; a change rebuilds the
    /// projections, or migrates them in place from ``migratableLayoutVersions`` when the store is
    /// compacted. 2: a plaintext store's values (outside `journal.fold`) carry their CRC-32C
    /// (``ValueChecksummer``, decision 0012); encrypted values are as in 1.
    static let layoutVersion: UInt32 = 2
    /// The layouts a compacted store migrates from: 1, whose plaintext values carry no checksum.
    static let migratableLayoutVersions: Set<UInt32> = [1]
    /// Values rewritten per step while a layout migration walks a database, so the walk never
    /// holds a whole database in memory.
    static let layoutMigrationBatchCountMax = 10_000

    static let foldDatabaseName = "journal.fold"
    static let kindsDatabaseName = "journal.kinds"
    static let foldedThroughKey = Array("folded-through".utf8)
    static let layoutKey = Array("layout".utf8)
    static let signatureKey = Array("projections".utf8)

    let environment: Environment
    let projections: [any Projection]
    /// Every projection's databases, by name.
    let databases: [String: Database]
    let kinds: Database
    let fold: Database
    let handleCache = ProjectionHandleCache()

    /// Opens (creating when missing) the databases of `projections` in `environment`.
    init(projections: [any Projection], in environment: Environment) throws {
        self.environment = environment
        self.projections = projections
        var databases: [String: Database] = [:]
        var names = Set<String>()
        for projection in projections {
            precondition(names.insert(projection.name).inserted, "two projections named \(projection.name)")
            for name in projection.databaseNames {
                precondition(!name.hasPrefix("journal."), "database names starting with journal. are reserved")
                precondition(databases[name] == nil, "database \(name) is declared by two projections")
                databases[name] = try environment.database(named: name)
            }
        }
        self.databases = databases
        kinds = try environment.database(named: Self.kindsDatabaseName)
        fold = try environment.database(named: Self.foldDatabaseName)
    }

    /// The projections' names and versions: folds by other projections are never mixed up.
    static func signature(of projections: [any Projection]) -> String {
        projections.map { "\($0.name)@\($0.version)" }.joined(separator: ",")
    }

    var signature: String {
        Self.signature(of: projections)
    }

    func context(_ transaction: Transaction) -> ProjectionContext {
        ProjectionContext(transaction: transaction, databases: databases, handleCache: handleCache)
    }

    // MARK: - Bookkeeping

    /// The last entry folded, or ``FoldMark/empty`` before the first.
    func foldedThrough(_ transaction: Transaction) throws -> FoldMark {
        try transaction.withValue(fold, key: Self.foldedThroughKey) { bytes in
            guard let bytes else { return .empty }
            guard let mark = FoldMark(bytes: bytes) else {
                throw JournalError(.storage, "the projections' fold record has \(bytes.count) bytes, not 12")
            }
            return mark
        }
    }

    func record(_ mark: FoldMark, in transaction: Transaction) throws {
        try transaction.put(fold, key: Self.foldedThroughKey, value: mark.bytes)
    }

    /// Whether the stored layout and projection versions are this build's.
    func isCurrent(_ transaction: Transaction) throws -> Bool {
        let layout = try transaction.get(fold, key: Self.layoutKey)
        let signature = try transaction.get(fold, key: Self.signatureKey)
        var expectedLayout: [UInt8] = []
        expectedLayout.appendBigEndian(Self.layoutVersion)
        return layout == expectedLayout && signature == Array(self.signature.utf8)
    }

    /// Empties every projection and the kind counts, and marks the state as folded through
    /// nothing, by this build's projections.
    func reset(in transaction: Transaction) throws {
        let context = context(transaction)
        for projection in projections { try projection.reset(in: context) }
        try transaction.clear(kinds)
        try transaction.clear(fold)
        var layout: [UInt8] = []
        layout.appendBigEndian(Self.layoutVersion)
        try transaction.put(fold, key: Self.layoutKey, value: layout)
        try transaction.put(fold, key: Self.signatureKey, value: Array(signature.utf8))
        try record(.empty, in: transaction)
    }

    /// Replaces every database's contents by those of `source` (a store of the same
    /// projections, read in `sourceTransaction`): how a state restored from a checkpoint
    /// enters an environment that is already open.
    /// - Complexity: O(size of `source`): every key is copied once, in key order.
    func replaceContents(
        with source: ProjectionStore, reading sourceTransaction: Transaction, in transaction: Transaction
    ) throws {
        let pairs = databases.sorted { $0.key < $1.key }.compactMap { name, destination in
            source.databases[name].map { (destination, $0) }
        }
        for (destination, origin) in pairs + [(kinds, source.kinds), (fold, source.fold)] {
            try transaction.clear(destination)
            try sourceTransaction.withCursor(origin) { cursor in
                try cursor.forEachInPlace { key, value in
                    try transaction.put(destination, key: Array(key), value: Array(value), options: .append)
                    return true
                }
            }
        }
    }

    // MARK: - Migrating

    /// The steps that bring state written under `signature` (``signature``'s form) to
    /// `projections` in place: each projection whose version differs, with the version
    /// that wrote it. `nil` when some projection cannot migrate or the projections are not the
    /// same ones; an empty list when nothing differs.
    static func migrationSteps(of projections: [any Projection], from signature: String)
        -> [(projection: any Projection, from: Int)]?
    {
        var stored: [String: Int] = [:]
        for part in signature.split(separator: ",") {
            guard let at = part.lastIndex(of: "@"), let version = Int(part[part.index(after: at)...]) else {
                return nil
            }
            stored[String(part[..<at])] = version
        }
        guard stored.count == projections.count else { return nil }
        var steps: [(projection: any Projection, from: Int)] = []
        for projection in projections {
            guard let version = stored[projection.name] else { return nil }
            guard version != projection.version else { continue }
            guard projection.migratableVersions.contains(version) else { return nil }
            steps.append((projection, version))
        }
        return steps
    }

    /// How this state migrates to this build's projections: the versions that wrote it, the
    /// layout its values have, and the step of each projection that changed; `nil` unless it
    /// has this build's layout (or one it migrates from) and every changed projection can
    /// migrate from its version.
    func migrationPlan(_ transaction: Transaction) throws -> (
        signature: String, layout: UInt32, steps: [(projection: any Projection, from: Int)]
    )? {
        guard let layout = try storedLayout(transaction),
            layout == Self.layoutVersion || Self.migratableLayoutVersions.contains(layout),
            let stored = try transaction.get(fold, key: Self.signatureKey).map({ String(decoding: $0, as: UTF8.self) }),
            let steps = Self.migrationSteps(of: projections, from: stored)
        else { return nil }
        return (stored, layout, steps)
    }

    /// Migrates state written by other versions of the projections in place, in
    /// `transaction`, and records this build's versions; returns whether it could (when not,
    /// nothing changed).
    func migrate(in transaction: Transaction) throws -> Bool {
        guard let plan = try migrationPlan(transaction) else { return false }
        // The values first: the projections' own migrations read them through the seal.
        if plan.layout != Self.layoutVersion { try migrateLayout(in: transaction) }
        let context = context(transaction)
        for step in plan.steps { try step.projection.migrate(from: step.from, in: context) }
        try transaction.put(fold, key: Self.signatureKey, value: Array(signature.utf8))
        return true
    }

    /// The layout version the state was written with, or `nil` when none is recorded.
    func storedLayout(_ transaction: Transaction) throws -> UInt32? {
        try transaction.get(fold, key: Self.layoutKey).flatMap { bytes in
            bytes.count == 4 ? bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil
        }
    }

    /// Brings layout 1 to this build's: in a plaintext store every value gets its checksum
    /// (decision 0012), read as stored and written through the seal; an encrypted store's
    /// values are unchanged. Then the layout version is recorded.
    private func migrateLayout(in transaction: Transaction) throws {
        if environment.sealer is ValueChecksummer {
            for database in databases.values.sorted(by: { $0.name < $1.name }) + [kinds] {
                try checksumValues(of: database, in: transaction)
            }
        }
        var layout: [UInt8] = []
        layout.appendBigEndian(Self.layoutVersion)
        try transaction.put(fold, key: Self.layoutKey, value: layout)
    }

    /// Rewrites every value of `database`, stored without a checksum, with one: a batch of
    /// keys at a time, each batch read past the seal and then written through it.
    private func checksumValues(of database: Database, in transaction: Transaction) throws {
        var start: [UInt8]?
        while true {
            var batch: [(key: [UInt8], value: [UInt8])] = []
            try transaction.withCursor(database.unsealed) { cursor in
                try cursor.forEachInPlace(in: KeyRange(from: start)) { key, value in
                    batch.append((Array(key), Array(value)))
                    return batch.count < Self.layoutMigrationBatchCountMax
                }
            }
            for pair in batch { try transaction.put(database, key: pair.key, value: pair.value) }
            guard batch.count == Self.layoutMigrationBatchCountMax, let last = batch.last else { return }
            // The least key after the last one rewritten.
            start = last.key + [0]
        }
    }

    // MARK: - Folding

    /// Applies `entry` to every projection, each with its decoder's value when `decoded` holds
    /// one per projection (``DecodeAhead``).
    /// - Complexity: the sum of the projections' `apply`.
    func apply(
        _ entry: JournalEntry, decoded: [(any Sendable)?]? = nil, in context: ProjectionContext,
        kinds deltas: inout KindDeltas
    ) throws {
        for (position, projection) in projections.enumerated() {
            if let decoded {
                try projection.apply(entry, decoded: decoded[position], in: context)
            } else {
                try projection.apply(entry, in: context)
            }
        }
        deltas.count(entry.kind)
    }

    /// Folds the stored entries of `range`, read in `entriesTransaction`, into `transaction`,
    /// and records the fold mark reached, which it returns.
    ///
    /// A range worth it is read and decoded on a second thread while this one folds
    /// (``DecodeAhead``); the state is the same either way.
    /// - Throws: ``JournalError/Code/gap`` when an entry of `range` is missing.
    func foldStored(
        _ range: ClosedRange<UInt64>, of entries: Database, reading entriesTransaction: Transaction,
        into transaction: Transaction
    ) throws -> FoldMark {
        var deltas = KindDeltas()
        var reached = FoldMark(sequence: range.lowerBound - 1, checksum: 0)
        let context = context(transaction)
        // Decoders are asked only for a range worth a thread: most folds are a short tail.
        let decoders =
            DecodeAhead.isWorthwhile(count: UInt64(range.count))
            ? try projections.map { try $0.entryDecoder(in: context) } : []
        if decoders.contains(where: { $0 != nil }) {
            try DecodeAhead.forEachEntry(of: entries, in: entriesTransaction, range, decoders: decoders) { decoded in
                try apply(decoded.entry, decoded: decoded.values, in: context, kinds: &deltas)
                reached = FoldMark(sequence: decoded.entry.sequence, checksum: decoded.checksum)
            }
        } else {
            try JournalReader.forEachStoredEntry(of: entries, in: entriesTransaction, range) { entry, checksum in
                try apply(entry, in: context, kinds: &deltas)
                reached = FoldMark(sequence: entry.sequence, checksum: checksum)
                return true
            }
        }
        // The scan finds a gap between entries, not a missing last one.
        guard reached.sequence == range.upperBound else {
            throw JournalError(
                .gap, "journal entry \(reached.sequence + 1) is missing", sequence: reached.sequence + 1)
        }
        try write(deltas, in: transaction)
        try record(reached, in: transaction)
        return reached
    }

    /// Adds the kind counts of one transaction's entries to the stored counts: once per
    /// transaction rather than once per entry.
    func write(_ deltas: KindDeltas, in transaction: Transaction) throws {
        for (kind, delta) in deltas.counts {
            let key = Array(kind.rawValue.utf8)
            let current = try transaction.get(kinds, key: key).flatMap(SequenceKey.decode) ?? 0
            try transaction.put(kinds, key: key, value: SequenceKey.encode(current + delta))
        }
    }

    /// The stored kind counts.
    func kindCounts(_ transaction: Transaction) throws -> [JournalEntry.Kind: UInt64] {
        var counts: [JournalEntry.Kind: UInt64] = [:]
        try transaction.withCursor(kinds) { cursor in
            try cursor.forEach { key, value in
                counts[JournalEntry.Kind(rawValue: String(decoding: key, as: UTF8.self))] = SequenceKey.decode(value)
                return true
            }
        }
        return counts
    }
}

/// The last entry a projection state has folded: its sequence and its checksum, so a state
/// that belongs to another journal (a replaced store, a restored backup) is recognised.
struct FoldMark: Hashable, Sendable {
    var sequence: UInt64
    var checksum: UInt32

    static let empty = FoldMark(sequence: 0, checksum: 0)

    /// 12 bytes: the sequence (`UInt64` BE) and the checksum (`UInt32` BE).
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12)
        bytes.appendBigEndian(sequence)
        bytes.appendBigEndian(checksum)
        return bytes
    }

    init(sequence: UInt64, checksum: UInt32) {
        self.sequence = sequence
        self.checksum = checksum
    }

    /// The mark `bytes` encode, or `nil` when they are not 12 bytes.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        sequence = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        checksum = bytes.dropFirst(8).reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Entries folded per kind in one transaction, written once at its end.
struct KindDeltas {
    private(set) var counts: [JournalEntry.Kind: UInt64] = [:]

    mutating func count(_ kind: JournalEntry.Kind) {
        counts[kind, default: 0] += 1
    }

    var isEmpty: Bool {
        counts.isEmpty
    }
}
