import CZstd

/// zstd's dictionary builder, `ZDICT_trainFromBuffer`, over sample values.
enum ZstdDictionary {
    /// A dictionary of at most `capacity` bytes trained from `samples`.
    /// - Throws: ``CodecError`` with code `dictionaryTraining` when zstd cannot train one (too few
    ///   or too small samples, for instance).
    static func train(_ samples: [[UInt8]], capacity: Int) throws(CodecError) -> [UInt8] {
        let joined = samples.flatMap(\.self)
        let sizes = samples.map(\.count)
        var dictionary = [UInt8](repeating: 0, count: capacity)
        let written = joined.withUnsafeBytes { source in
            sizes.withUnsafeBufferPointer { sizes in
                dictionary.withUnsafeMutableBytes { target in
                    ZDICT_trainFromBuffer(
                        target.baseAddress, target.count, source.baseAddress, sizes.baseAddress, UInt32(sizes.count))
                }
            }
        }
        guard ZDICT_isError(written) == 0 else {
            throw CodecError(
                code: .dictionaryTraining, codec: "zstd",
                message: "ZDICT_trainFromBuffer: \(String(cString: ZDICT_getErrorName(written)))")
        }
        dictionary.removeLast(dictionary.count - written)
        return dictionary
    }
}
