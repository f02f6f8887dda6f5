import Foundation
import LMDBStore

/// The live projections' sealer on an encrypted store: the store's ``StoreCipher``, plus the
/// mark a value that fails to open leaves, so that the next open replaces the projections from
/// a checkpoint or the journal, as a plaintext store's ``ValueChecksummer`` does (decision
/// 0012).
///
/// Without the mark, one damaged value of an encrypted store failed every read of it for ever,
/// although the journal still held what it was derived from. The key cannot be the cause: a
/// store opens only once its key has opened the store's key record. The journal's environment
/// and the copies (checkpoints, scratch folds) use the cipher alone: a damaged entry is the
/// journal's damage, not the projections', and a copy's damage is not the live store's.
final class ProjectionCipher: ValueSealer {
    let cipher: StoreCipher
    /// The file a failed open leaves (``StoreLayout/projectionDamageMarker``).
    let damageMarker: URL

    init(cipher: StoreCipher, damageMarker: URL) {
        self.cipher = cipher
        self.damageMarker = damageMarker
    }

    func seals(databaseNamed name: String) -> Bool {
        cipher.seals(databaseNamed: name)
    }

    func seal(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8] {
        try cipher.seal(value, key: key, database: database)
    }

    /// The cipher's plaintext; a value that does not open leaves the mark before its error.
    func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8] {
        try withOpened(sealed, key: key, database: database) { Array($0) }
    }

    /// As ``open(_:key:database:)``, without copying the plaintext; only the cipher's failure
    /// leaves the mark, never one of `body`.
    func withOpened<T>(
        _ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        try cipher.withPlaintext(of: sealed, key: key, database: database, noting: markingDamage, body)
    }

    /// `error`, once the mark is left, saying what the next open does about it.
    private func markingDamage(_ error: JournalError) -> JournalError {
        guard error.code == .tampered else { return error }
        var error = error
        do {
            try ValueChecksummer.leaveMark(at: damageMarker)
            error.message += "; the next open rebuilds the projections from the journal"
        } catch let marking {
            error.message +=
                "; noting the damage failed (\(marking)), remove "
                + "\(damageMarker.deletingLastPathComponent().path) to rebuild them"
        }
        return error
    }

    func keyedDigest(of bytes: [UInt8]) -> [UInt8] {
        cipher.keyedDigest(of: bytes)
    }

}
