import Determinism
package import Foundation
import LMDBStore

/// What a power loss can leave of a store's projections, for the simulation and tests of
/// recovery: everything written without a sync, damaged in a seeded way. Projections the
/// journal does not note as holding unsynced writes were synced whole, and are left alone.
///
/// With a ``SyncedSnapshotRecord``, what was synced is the recorded snapshot: its pages (at or
/// below its last page and not in its free-page database) stay as they were, and everything
/// else (the meta pages, pages the snapshot does not use, the file past its last page) may hold
/// any bytes, zeros or nothing. Without one, the whole file was written without a sync: it may
/// be damaged anywhere, cut short, an older copy, or missing.
package enum PowerLossDamage {
    /// Damages `store`'s projections as a power loss could, chosen by `how`.
    package static func damageUnsyncedProjections(of store: URL, how: UInt64) throws {
        let projections = store.appendingPathComponent("projections", isDirectory: true)
        let file = projections.appendingPathComponent("data.mdb")
        guard FileManager.default.fileExists(atPath: file.path), try holdsUnsyncedWrites(store) else { return }
        if let record = SyncedSnapshotRecord.read(in: projections) {
            try damagePagesAfter(record.meta, in: file, how: how)
        } else {
            try damageWholeFile(file, checkpoints: store.appendingPathComponent("checkpoints"), how: how)
        }
    }

    /// Whether the journal of `store` notes projection writes not synced yet. A journal closed
    /// or released syncs its projections and then removes the note, so without it the file is
    /// on disk as it stands, recorded snapshot or not, and a power loss leaves it whole: damaging
    /// it anyway made a reopen that rightly trusted it read the damage (a process killed before
    /// its first write, after the previous one was released).
    private static func holdsUnsyncedWrites(_ store: URL) throws -> Bool {
        var options = EnvironmentOptions()
        options.isReadOnly = true
        let environment = try Environment(
            directory: store.appendingPathComponent("journal", isDirectory: true), options: options)
        let meta = try environment.database(named: Journal.metaDatabaseName)
        return try environment.read { try $0.get(meta, key: Journal.unsyncedBootKey) != nil }
    }

    /// Damages what was written after the snapshot `meta`: bytes flipped in its unsynced
    /// pages, those pages zeroed (a file system that zero-fills what it lost), or the file cut
    /// anywhere past the snapshot's last page.
    private static func damagePagesAfter(_ meta: SnapshotMeta, in file: URL, how: UInt64) throws {
        let free = try DataFileHeader.freePages(of: meta, in: file)
        var bytes = try Data(contentsOf: file)
        let pageSize = meta.pageSizeBytes
        let pages = UInt64(bytes.count / pageSize)
        let unsynced = (0..<pages).filter { $0 < 2 || $0 > meta.lastPage || free.contains($0) }
        var random = SplitMix64(seed: how)
        switch how % 4 {
        case 0:
            for _ in 0..<64 {
                let page = unsynced[Int(random.next() % UInt64(unsynced.count))]
                bytes[Int(page) * pageSize + Int(random.next() % UInt64(pageSize))] ^= 0xFF
            }
        case 1, 2:
            for page in unsynced where how % 4 == 2 || random.next() % 2 == 0 {
                let start = Int(page) * pageSize
                bytes.replaceSubrange(start..<start + pageSize, with: repeatElement(0, count: pageSize))
            }
        default:
            let synced = Int(meta.lastPage + 1) * pageSize
            bytes = bytes.prefix(synced + Int(random.next() % UInt64(max(1, bytes.count - synced + 1))))
        }
        try bytes.write(to: file)
    }

    /// Damages a file of which nothing was synced: bytes of any page changed, the file cut
    /// short, an older copy (the oldest checkpoint's), or no file.
    private static func damageWholeFile(_ file: URL, checkpoints: URL, how: UInt64) throws {
        switch how % 4 {
        case 0:
            var bytes = try Data(contentsOf: file)
            var random = SplitMix64(seed: how)
            for _ in 0..<64 { bytes[Int(random.next() % UInt64(bytes.count))] ^= 0xFF }
            try bytes.write(to: file)
        case 1:
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(Int(how % UInt64(max(1, bytes.count)))).write(to: file)
        case 2:
            let oldest = (try? FileManager.default.contentsOfDirectory(atPath: checkpoints.path))?
                .compactMap(UInt64.init).min()
            try FileManager.default.removeItem(at: file)
            if let oldest {
                try FileManager.default.copyItem(at: checkpoints.appendingPathComponent("\(oldest)/data.mdb"), to: file)
            }
        default:
            try FileManager.default.removeItem(at: file)
        }
    }
}
