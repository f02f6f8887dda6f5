import EventJournal

/// The forms of a value in `soups.records`, and how each is made and opened (decision 0030).
///
/// A stored value's first byte names its form:
///
/// | first byte | form | rest |
/// |---|---|---|
/// | `{` (0x7B) | the record's compact JSON, as layout versions 1 to 3 stored every record | — |
/// | 0x01 | zstd with a dictionary of the record's soup | dictionary id (4, big-endian) · one zstd frame |
///
/// A record is always a JSON object, so its serialization always starts with `{`, and a store
/// written before records were compressed needs no rewrite: every value in it is of the first
/// form. The frame carries its content size, which bounds the value opened.
enum StoredRecordValue {
    /// The first byte of a value compressed with a dictionary.
    static let compressedTag: UInt8 = 0x01
    /// The tag and the dictionary id.
    static let headerBytes = 5
    /// Larger records are stored as they are: a frame declaring more than this is damage, so an
    /// open never allocates what a damaged header asks for.
    static let compressedValueBytesMax = 16 << 20

    /// The id of the dictionary that compressed `stored`, or `nil` for a record stored as JSON.
    static func dictionaryId(of stored: some Collection<UInt8>) -> UInt32? {
        guard stored.first == compressedTag, stored.count >= headerBytes else { return nil }
        return UInt32(truncatingIfNeeded: readBigEndian(stored.dropFirst().prefix(4)))
    }

    /// The stored form of `json`: compressed with `dictionary` when that is smaller, the JSON
    /// itself otherwise.
    static func stored(_ json: [UInt8], with dictionary: RecordDictionary?) -> [UInt8] {
        guard let dictionary, json.count <= compressedValueBytesMax, let frame = dictionary.compressed(json),
            frame.count + headerBytes < json.count
        else { return json }
        var value: [UInt8] = []
        value.reserveCapacity(headerBytes + frame.count)
        value.append(compressedTag)
        withUnsafeBytes(of: dictionary.id.bigEndian) { value.append(contentsOf: $0) }
        value.append(contentsOf: frame)
        return value
    }

    /// The stored forms of `jsons`, in order: each is ``stored(_:with:)``'s. With `inHalves`,
    /// the second half is compressed on another thread while this one compresses the first
    /// (decision 0034); each value depends on its JSON and the dictionary only, so the values
    /// are the same either way.
    static func stored(_ jsons: [[UInt8]], with dictionary: RecordDictionary, inHalves: Bool) -> [[UInt8]] {
        guard inHalves, jsons.count >= 2 else { return jsons.map { stored($0, with: dictionary) } }
        let middle = jsons.count / 2
        let secondHalf = Array(jsons[middle...])
        let later = WorkBeside { secondHalf.map { stored($0, with: dictionary) } }
        // Nothing here throws, so the second thread is always joined.
        var values = jsons[..<middle].map { stored($0, with: dictionary) }
        values += later.join()
        return values
    }

    /// The JSON of a stored value.
    ///
    /// - Parameters:
    ///   - stored: the value as `soups.records` holds it.
    ///   - dictionary: the soup's dictionary of the given id, or `nil` when the soup has none
    ///     of that id.
    /// - Throws: ``SoupError/Code/storage`` for a value of no known form, one whose dictionary
    ///   is unknown, or a frame that does not open: the same kind as any other damaged value.
    static func json(of stored: [UInt8], dictionary: (UInt32) throws -> RecordDictionary?) throws -> [UInt8] {
        guard let first = stored.first, first != UInt8(ascii: "{") else { return stored }
        guard let id = dictionaryId(of: stored) else {
            throw SoupError(.storage, "a stored soup record has an unknown form (first byte \(first))")
        }
        guard let found = try dictionary(id) else {
            throw SoupError(.storage, "a stored soup record names dictionary \(id), which its soup does not have")
        }
        let opened = stored.withUnsafeBytes { raw in
            found.decompressed(
                UnsafeRawBufferPointer(rebasing: raw[headerBytes...]), valueBytesMax: compressedValueBytesMax)
        }
        guard let opened else {
            throw SoupError(.storage, "a stored soup record compressed with dictionary \(id) is damaged")
        }
        return opened
    }
}
