import Foundation
import LMDBStore
import LosslessJSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The checkpoints of a store's projections: compact, synced copies of a ``ProjectionStore``
/// environment, one folder per sequence.
///
/// ```
/// <checkpoints>/<sequence>/data.mdb          the copy; its journal.fold names the sequence
/// <checkpoints>/<sequence>/checkpoint.json   {bytes, crc32c, entryChecksum, layout, projections, sequence}
/// ```
///
/// A checkpoint is written under a temporary name, synced, then renamed and the directory
/// synced, so a power loss leaves a whole checkpoint or none. It is used only when its
/// manifest matches this build's projections, its entry checksum matches the journal's entry
/// at that sequence (so a checkpoint of another history is never used), and the copied bytes
/// match its CRC-32C and size. One that fails is removed.
struct CheckpointStore {
    let directory: URL
    /// The projections' names and versions (``ProjectionStore/signature``).
    let signature: String
    /// The store's seal: a copy is opened with it to read its fold mark.
    let sealer: (any ValueSealer)?
    /// The store's anchor, restored like a checkpoint at its fold mark; `nil` to use only the
    /// folders (decision 0016).
    var anchor: Anchor? = nil
    /// Whether the store was opened read-only (decision 0024): checkpoints are then only
    /// read, never saved, and one that fails its checks is skipped instead of removed.
    var isReadOnly = false

    static let manifestName = "checkpoint.json"
    static let dataName = "data.mdb"
    /// The names a re-sealed copy alternates between; see ``Manifest/dataName``.
    static let alternateDataNames: Set<String> = [dataName, "data-resealed.mdb"]

    /// What a checkpoint's manifest says.
    struct Manifest: Hashable {
        var sequence: UInt64
        var entryChecksum: UInt32
        var bytes: Int
        var crc32c: UInt32
        var layout: UInt32
        var projections: String
        /// The copy's file in the folder: `data.mdb`, or another name after a key rotation
        /// sealed the copy again beside the first (decision 0006).
        var dataName = CheckpointStore.dataName

        var json: JSONValue {
            var fields: [String: JSONValue] = [
                "sequence": .number(JSONNumber(Int64(sequence))),
                "entryChecksum": .number(JSONNumber(Int64(entryChecksum))),
                "bytes": .number(JSONNumber(Int64(bytes))),
                "crc32c": .number(JSONNumber(Int64(crc32c))),
                "layout": .number(JSONNumber(Int64(layout))),
                "projections": .string(projections),
            ]
            if dataName != CheckpointStore.dataName { fields["data"] = .string(dataName) }
            return .object(fields)
        }

        init(sequence: UInt64, entryChecksum: UInt32, bytes: Int, crc32c: UInt32, layout: UInt32, projections: String) {
            self.sequence = sequence
            self.entryChecksum = entryChecksum
            self.bytes = bytes
            self.crc32c = crc32c
            self.layout = layout
            self.projections = projections
        }

        init?(_ json: JSONValue) {
            func integer(_ name: String) -> Int64? { json[name]?.number?.int64Value }
            guard let sequence = integer("sequence"), sequence > 0,
                let entryChecksum = integer("entryChecksum").flatMap(UInt32.init(exactly:)),
                let bytes = integer("bytes"), bytes > 0,
                let crc32c = integer("crc32c").flatMap(UInt32.init(exactly:)),
                let layout = integer("layout").flatMap(UInt32.init(exactly:)),
                let projections = json["projections"]?.string
            else { return nil }
            self.init(
                sequence: UInt64(sequence), entryChecksum: entryChecksum, bytes: Int(bytes), crc32c: crc32c,
                layout: layout, projections: projections)
            if let dataName = json["data"]?.string {
                // A name, never a path: the manifest may not point outside its folder.
                guard CheckpointStore.alternateDataNames.contains(dataName) else { return nil }
                self.dataName = dataName
            }
        }
    }

    // MARK: - Listing

    /// The sequences of the checkpoint folders present, newest first (valid or not).
    func sequences() -> [UInt64] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap(UInt64.init).filter { $0 > 0 }.sorted(by: >)
    }

    /// The bytes of every file in the checkpoint folders present (valid or not): what removing
    /// them would free.
    func fileBytes() -> Int {
        sequences().reduce(0) { total, sequence in
            let folder = folder(sequence)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.reduce(total) { $0 + (StoreLayout.fileBytes(folder.appendingPathComponent($1)) ?? 0) }
        }
    }

    func folder(_ sequence: UInt64) -> URL {
        directory.appendingPathComponent(String(sequence), isDirectory: true)
    }

    /// The manifest of the checkpoint at `sequence` when it is one of this build's.
    func manifest(_ sequence: UInt64) -> Manifest? {
        guard let manifest = Self.anyManifest(in: folder(sequence)), manifest.sequence == sequence,
            manifest.layout == ProjectionStore.layoutVersion, manifest.projections == signature
        else { return nil }
        return manifest
    }

    /// The manifest in `folder`, whichever projections wrote it.
    static func anyManifest(in folder: URL) -> Manifest? {
        let url = folder.appendingPathComponent(manifestName)
        guard let bytes = FileManager.default.contents(atPath: url.path),
            let json = try? JSONValue(parsing: Array(bytes))
        else { return nil }
        return Manifest(json)
    }

    /// The copy's data file of the checkpoint at `sequence`, as its manifest names it.
    func dataFile(_ sequence: UInt64, _ manifest: Manifest) -> URL {
        folder(sequence).appendingPathComponent(manifest.dataName)
    }

    // MARK: - Restoring

    /// Copies the newest valid checkpoint at or below `sequence` into `destination` (a new
    /// folder) and returns its fold mark; `nil`, with nothing created, when there is none.
    ///
    /// The anchor counts as a checkpoint at its fold mark; at the same sequence a folder is
    /// preferred. A folder that fails its checks is removed; the anchor never is, since it may
    /// be the only state before the horizon.
    /// - Parameter entryChecksum: the journal's checksum of the entry at a sequence, or `nil`
    ///   when the journal has no such entry.
    func restoreNearest(
        atOrBelow sequence: UInt64, entryChecksum: (UInt64) throws -> UInt32?, into destination: URL
    ) throws -> FoldMark? {
        var anchorMark = try anchor?.foldMark(signature: signature).flatMap { $0.sequence <= sequence ? $0 : nil }
        for candidate in sequences() where candidate <= sequence {
            if let mark = anchorMark, mark.sequence > candidate {
                anchorMark = nil
                if let restored = try restoreAnchor(
                    atOrBelow: sequence, entryChecksum: entryChecksum, into: destination)
                {
                    return restored
                }
            }
            guard let manifest = manifest(candidate), try entryChecksum(candidate) == manifest.entryChecksum else {
                discard(candidate)
                continue
            }
            try Self.empty(destination)
            let copied = try FileDurability.copy(
                dataFile(candidate, manifest), to: destination.appendingPathComponent(Self.dataName))
            // The checksum covers the whole copy; the header check also refuses a copy that
            // was damaged before its checksum was taken (decision 0013).
            guard copied.checksum == manifest.crc32c, copied.bytes == manifest.bytes,
                Self.headerIsSound(destination.appendingPathComponent(Self.dataName))
            else {
                try? Self.empty(destination)
                discard(candidate)
                continue
            }
            return FoldMark(sequence: candidate, checksum: manifest.entryChecksum)
        }
        guard anchorMark != nil else { return nil }
        return try restoreAnchor(atOrBelow: sequence, entryChecksum: entryChecksum, into: destination)
    }

    /// Copies the anchor into `destination` from a read snapshot and returns the copy's fold
    /// mark, when that mark is at or below `sequence` and continues the journal; `nil`, with
    /// nothing left at `destination`, otherwise. The mark is read from the copy, since a
    /// compaction in another process may fold into the anchor meanwhile.
    func restoreAnchor(
        atOrBelow sequence: UInt64, entryChecksum: (UInt64) throws -> UInt32?, into destination: URL
    ) throws -> FoldMark? {
        guard let anchor else { return nil }
        try Self.empty(destination)
        try anchor.withEnvironment { try $0.copy(to: destination, compact: true) }
        guard let mark = try foldMark(ofCopy: destination), mark.sequence <= sequence,
            try entryChecksum(mark.sequence) == mark.checksum
        else {
            try? Self.empty(destination)
            return nil
        }
        return mark
    }

    /// Leaves `destination` an empty directory. The directory itself stays: it may be a scratch
    /// directory claimed by creating it, and removing it would free its name for another claim
    /// while this restore still writes into it.
    private static func empty(_ destination: URL) throws {
        let files = FileManager.default
        try files.createDirectory(
            at: destination, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in try files.contentsOfDirectory(atPath: destination.path) {
            try files.removeItem(at: destination.appendingPathComponent(name))
        }
    }

    /// Whether the LMDB data file `file` passes the checks made before mapping it
    /// (``DataFileHeader``).
    static func headerIsSound(_ file: URL) -> Bool {
        do {
            _ = try DataFileHeader.read(from: file)
            return true
        } catch {
            return false
        }
    }

    /// Removes a checkpoint that cannot be used. Best effort: a leftover folder is only ever
    /// skipped again.
    func discard(_ sequence: UInt64) {
        guard !isReadOnly else { return }
        try? FileManager.default.removeItem(at: folder(sequence))
    }

    // MARK: - Saving

    /// Writes a checkpoint of `environment` (a ``ProjectionStore``'s) as it is now, unless one
    /// exists at that sequence.
    ///
    /// The copy is taken from a read snapshot, so writers are not held up; the sequence is the
    /// one the copy itself records.
    /// - Returns: the checkpoint's fold mark, or `nil` when the state folds nothing yet.
    @discardableResult
    func save(_ environment: Environment) throws -> FoldMark? {
        guard !isReadOnly else { return nil }
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        removeAbandonedPartials()
        let temporary = directory.appendingPathComponent(
            "partial-\(getpid())-\(checkpointCounter.add(1, ordering: .relaxed).newValue)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        try environment.copy(to: temporary, compact: true)
        let data = temporary.appendingPathComponent(Self.dataName)
        guard let mark = try foldMark(ofCopy: temporary), mark.sequence > 0 else { return nil }
        let location = folder(mark.sequence)
        guard !FileManager.default.fileExists(atPath: location.path) else { return mark }
        try FileDurability.flushFile(data)
        let sum = try FileDurability.checksum(of: data)
        let manifest = Manifest(
            sequence: mark.sequence, entryChecksum: mark.checksum, bytes: sum.bytes, crc32c: sum.checksum,
            layout: ProjectionStore.layoutVersion, projections: signature)
        let manifestURL = temporary.appendingPathComponent(Self.manifestName)
        try Data(manifest.json.serialized()).write(to: manifestURL)
        try FileDurability.flushFile(manifestURL)
        try FileDurability.flushDirectory(temporary)
        do {
            try FileManager.default.moveItem(at: temporary, to: location)
        } catch  where FileManager.default.fileExists(atPath: location.path) {
            return mark  // another process saved the same sequence first
        }
        try FileDurability.flushDirectory(directory)
        return mark
    }

    /// The fold mark recorded inside a copied environment; the copy's lock file is removed.
    private func foldMark(ofCopy folder: URL) throws -> FoldMark? {
        defer { try? FileManager.default.removeItem(at: folder.appendingPathComponent("lock.mdb")) }
        let copy = try Environment(directory: folder, options: Self.copyOptions, sealer: sealer)
        let fold = try copy.database(named: ProjectionStore.foldDatabaseName)
        return try copy.read { transaction in
            try transaction.get(fold, key: ProjectionStore.foldedThroughKey).flatMap(FoldMark.init(bytes:))
        }
    }

    /// Copies are written once and synced as files, never commit by commit.
    static var copyOptions: EnvironmentOptions {
        var options = EnvironmentOptions()
        options.flushesOnCommit = false
        return options
    }

    /// Removes the temporary folders of checkpoints whose writer process is gone.
    private func removeAbandonedPartials() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix("partial-") || name.hasSuffix(".partial") {
            let parts = name.split(separator: "-")
            // EPERM: the process exists but is not ours to signal (another user, a sandbox): alive.
            if parts.count >= 2, let pid = Int32(parts[1]), pid == getpid() || kill(pid, 0) == 0 || errno == EPERM {
                continue
            }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}

// MARK: - Sealing again

extension CheckpointStore {
    /// Rewrites the checkpoint at `sequence` through `transform`: seals it again under the
    /// sealer's current data key (a key rotation, decision 0006) or migrates it to other
    /// projection versions (decision 0010). Returns whether it did, or `false` for a checkpoint
    /// that is not whole (left for ``discard(_:)``).
    ///
    /// The new copy is written beside the old one under the other of two names, synced, then
    /// a new manifest naming it replaces the old manifest in one `rename`, and only then is the
    /// old copy removed. So at every moment the manifest names a whole copy that matches it.
    /// - Parameters:
    ///   - scratch: a folder to work in; removed first and afterwards.
    ///   - projections: the signature the new manifest records; `nil` keeps the old one.
    ///   - layout: the layout version the new manifest records; `nil` keeps the old one.
    ///   - transform: changes the copy's environment in place.
    func rewrite(
        _ sequence: UInt64, scratch: URL, projections: String? = nil, layout: UInt32? = nil,
        _ transform: (Environment) throws -> Void
    ) throws -> Bool {
        let files = FileManager.default
        let folder = folder(sequence)
        guard var manifest = Self.anyManifest(in: folder), manifest.sequence == sequence else { return false }
        try? files.removeItem(at: scratch)
        defer { try? files.removeItem(at: scratch) }
        try files.createDirectory(
            at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let copied = try FileDurability.copy(
            dataFile(sequence, manifest), to: scratch.appendingPathComponent(Self.dataName))
        guard copied.checksum == manifest.crc32c, copied.bytes == manifest.bytes else { return false }
        let compacted = scratch.appendingPathComponent("compacted", isDirectory: true)
        try transformCopy(in: scratch, into: compacted, transform)
        let oldName = manifest.dataName
        if let projections { manifest.projections = projections }
        if let layout { manifest.layout = layout }
        manifest.dataName = oldName == Self.dataName ? "data-resealed.mdb" : Self.dataName
        let newFile = folder.appendingPathComponent(manifest.dataName)
        try? files.removeItem(at: newFile)
        try files.moveItem(at: compacted.appendingPathComponent(Self.dataName), to: newFile)
        try FileDurability.flushFile(newFile)
        let sum = try FileDurability.checksum(of: newFile)
        (manifest.bytes, manifest.crc32c) = (sum.bytes, sum.checksum)
        try FileDurability.flushDirectory(folder)
        let newManifest = folder.appendingPathComponent(Self.manifestName + ".new")
        try Data(manifest.json.serialized()).write(to: newManifest)
        try FileDurability.flushFile(newManifest)
        guard rename(newManifest.path, folder.appendingPathComponent(Self.manifestName).path) == 0 else {
            throw JournalError(
                .storage, "cannot replace the manifest in \(folder.path): \(String(cString: strerror(errno)))")
        }
        try FileDurability.flushDirectory(folder)
        try? files.removeItem(at: folder.appendingPathComponent(oldName))
        return true
    }

    /// Opens the copy in `scratch`, changes it, and writes a compact copy of it into
    /// `destination`; the environment is closed when this returns.
    private func transformCopy(
        in scratch: URL, into destination: URL, _ transform: (Environment) throws -> Void
    ) throws {
        let environment = try Environment(directory: scratch, options: Self.copyOptions, sealer: sealer)
        try transform(environment)
        try environment.copy(to: destination, compact: true)
    }

    /// Migrates the checkpoint at `sequence`, written by other versions of `projections`, to
    /// this store's (decision 0010). Returns whether it did; a checkpoint that is not whole, or
    /// whose projections cannot migrate, is left as it is.
    func migrate(_ sequence: UInt64, to projections: [any Projection], scratch: URL) throws -> Bool {
        let currentLayout = ProjectionStore.layoutVersion
        guard let manifest = Self.anyManifest(in: folder(sequence)), manifest.sequence == sequence,
            manifest.layout == currentLayout || ProjectionStore.migratableLayoutVersions.contains(manifest.layout),
            manifest.layout != currentLayout || manifest.projections != signature,
            ProjectionStore.migrationSteps(of: projections, from: manifest.projections) != nil
        else { return false }
        return try rewrite(sequence, scratch: scratch, projections: signature, layout: currentLayout) { environment in
            let store = try ProjectionStore(projections: projections, in: environment)
            guard try environment.write({ try store.migrate(in: $0) }) else {
                throw JournalError(
                    .needsMigration, "checkpoint \(sequence) records other projections than its manifest says")
            }
        }
    }
}
