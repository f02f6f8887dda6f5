import Foundation
import LMDBStore

/// The entries still readable in a damaged journal file, past what the projections folded
/// (issue 49, decision 0026).
///
/// A truncated file cannot be opened by LMDB (its trees may point past the end), but its
/// leaf pages before the damage hold whole entries. They are read with `pread`, page by
/// page (``DataFileHeader/leafNodes(of:keyBytes:)``), and each must pass the envelope's
/// checksum and its sequence check, and on an encrypted store the cipher's authentication,
/// so nothing read here is ever taken from another database or half-written. Free pages may
/// hold older copies of an entry; copies that differ make that entry, and so everything after
/// it, unreadable rather than guessed.
///
/// Only the entries right after the projections' fold mark matter to recovery: the ones
/// before it are in the projections' state already, and the new journal begins after it.
struct JournalSalvage {
    /// The gap-free entries after the fold mark, in order.
    var entries: [JournalEntry]

    /// Reads the entries after `mark` from the journal file at `file`; none when the file
    /// cannot be read, or it does not hold the entry at `mark` with the checksum the
    /// projections folded (another history, or that entry was lost).
    init(file: URL, after mark: FoldMark, cipher: StoreCipher?) {
        entries = []
        guard let nodes = try? DataFileHeader.leafNodes(of: file, keyBytes: 8) else { return }
        var found: [UInt64: [UInt8]?] = [:]
        for node in nodes {
            guard let sequence = SequenceKey.decode(node.key), sequence >= mark.sequence,
                let envelope = Self.envelope(node, cipher: cipher),
                (try? envelope.withUnsafeBytes { try JournalEntry(envelope: $0, expectedSequence: sequence) }) != nil
            else { continue }
            switch found[sequence] {
            case .none: found[sequence] = envelope
            case .some(let earlier) where earlier != envelope: found[sequence] = .some(nil)
            default: break
            }
        }
        if mark.sequence > 0 {
            guard case .some(.some(let folded)) = found[mark.sequence],
                JournalEntry.storedChecksum(ofEnvelope: folded) == mark.checksum
            else { return }
        }
        var sequence = mark.sequence + 1
        while case .some(.some(let envelope)) = found[sequence],
            let entry = try? envelope.withUnsafeBytes({ try JournalEntry(envelope: $0, expectedSequence: sequence) })
        {
            entries.append(entry)
            sequence += 1
        }
    }

    /// The envelope a node holds: its value, opened by the cipher on an encrypted store;
    /// `nil` when it does not open.
    private static func envelope(_ node: DataFileHeader.LeafNode, cipher: StoreCipher?) -> [UInt8]? {
        guard let cipher else { return node.value }
        return try? node.value.withUnsafeBytes { value in
            try node.key.withUnsafeBytes { key in
                try cipher.open(value, key: key, database: Journal.entriesDatabaseName)
            }
        }
    }
}
