import Foundation

/// The copy of an encrypted store's key record kept in the store's folder, outside the
/// journal, so that `recoverJournal` can open the projections when the journal is lost
/// (decision 0026).
///
/// It holds the very bytes of `journal.keys`: the data keys and the index key, each wrapped
/// (AES-GCM) under the app's ``StoreKey``, never in plaintext. So it protects the keys exactly
/// as the journal does, and a wrong app key fails its tags before anything is changed. The
/// file is a magic, a CRC-32C of the record and the record; the CRC tells damage to the copy
/// apart from a wrong key, which the tags alone cannot.
///
/// The journal's record stays the one that counts: a writable open and a key rotation write
/// the copy after the journal commits its record (temporary file, `fsync`, `rename`, `fsync`
/// of the folder), so a crash leaves the old copy or the new one whole, and the next writable
/// open writes it again when it differs. Read-only opens never write it (decision 0024).
struct KeyRecordCopy {
    /// The file's name in the store's folder.
    static let fileName = "wrapped-keys"
    /// The first bytes of the file: its name and format version.
    static let magic = Array("SJKEYS01".utf8)

    /// The file.
    let file: URL

    init(in layout: StoreLayout) {
        file = layout.directory.appendingPathComponent(Self.fileName)
    }

    /// The record the copy holds; `nil` when there is no copy.
    /// - Throws: ``JournalError/Code/tampered`` when the file is not a whole copy.
    func read() throws -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let bytes = [UInt8](data)
        let headerCount = Self.magic.count + 4
        guard bytes.count > headerCount, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            throw damaged()
        }
        let stored = bytes[Self.magic.count..<headerCount].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let record = Array(bytes[headerCount...])
        guard CRC32C.checksum(record) == stored else { throw damaged() }
        return record
    }

    /// Makes the copy hold `record`, unless it already does.
    func keepInStep(with record: [UInt8]) throws {
        if (try? read()) == record { return }
        try write(record)
    }

    /// Replaces the copy by one holding `record`, durably and atomically.
    func write(_ record: [UInt8]) throws {
        let checksum = CRC32C.checksum(record)
        let bytes = Self.magic + (0..<4).map { UInt8(truncatingIfNeeded: checksum >> (8 * $0)) } + record
        try FileDurability.replace(file, with: bytes)
    }

    private func damaged() -> JournalError {
        JournalError(
            .tampered,
            "the copy of the store's wrapped keys at \(file.path) is damaged; restore the journal from a backup")
    }
}
