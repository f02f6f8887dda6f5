import CZstd

/// zstd at one level, with or without a dictionary (one ``ZstdDictionary`` trained from a sample).
///
/// Frames carry their content size (zstd's default), so a store needs no length header; the
/// dictionary's id is left out of each frame (`ZSTD_c_dictIDFlag` 0): a store knows which
/// dictionary its values use, and the four bytes would be paid on every record.
final class ZstdCodec: RecordCodec {
    let name: String
    private let compression: OpaquePointer
    private let decompression: OpaquePointer
    private let compressionDictionary: OpaquePointer?
    private let decompressionDictionary: OpaquePointer?

    /// A codec at `level` with `dictionary` (empty for none).
    init(level: Int32, dictionary: [UInt8] = []) throws(CodecError) {
        name = "zstd-\(level)" + (dictionary.isEmpty ? "" : "+dict")
        guard let compression = ZSTD_createCCtx(), let decompression = ZSTD_createDCtx() else {
            throw CodecError(code: .library, codec: name, message: "ZSTD_createCCtx or ZSTD_createDCtx failed")
        }
        self.compression = compression
        self.decompression = decompression
        if dictionary.isEmpty {
            compressionDictionary = nil
            decompressionDictionary = nil
        } else {
            compressionDictionary = dictionary.withUnsafeBytes {
                ZSTD_createCDict($0.baseAddress, $0.count, level)
            }
            decompressionDictionary = dictionary.withUnsafeBytes { ZSTD_createDDict($0.baseAddress, $0.count) }
        }
        try check(ZSTD_CCtx_setParameter(compression, ZSTD_c_compressionLevel, level), "ZSTD_c_compressionLevel")
        try check(ZSTD_CCtx_setParameter(compression, ZSTD_c_dictIDFlag, 0), "ZSTD_c_dictIDFlag")
        guard !dictionary.isEmpty else { return }
        guard let compressionDictionary, let decompressionDictionary else {
            throw CodecError(code: .library, codec: name, message: "ZSTD_createCDict or ZSTD_createDDict failed")
        }
        try check(ZSTD_CCtx_refCDict(compression, compressionDictionary), "ZSTD_CCtx_refCDict")
        try check(ZSTD_DCtx_refDDict(decompression, decompressionDictionary), "ZSTD_DCtx_refDDict")
    }

    deinit {
        ZSTD_freeCCtx(compression)
        ZSTD_freeDCtx(decompression)
        ZSTD_freeCDict(compressionDictionary)
        ZSTD_freeDDict(decompressionDictionary)
    }

    func compress(_ input: [UInt8]) throws(CodecError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
        let written = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                // Sticky parameters and the referenced dictionary apply to every ZSTD_compress2.
                ZSTD_compress2(compression, target.baseAddress, target.count, source.baseAddress, source.count)
            }
        }
        try check(written, "ZSTD_compress2")
        output.removeLast(output.count - written)
        return output
    }

    func decompress(_ input: [UInt8], originalCount: Int) throws(CodecError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: originalCount)
        let written = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                // Uses the dictionary ZSTD_DCtx_refDDict referenced, if any.
                ZSTD_decompressDCtx(decompression, target.baseAddress, target.count, source.baseAddress, source.count)
            }
        }
        try check(written, "ZSTD_decompressDCtx")
        guard written == originalCount else {
            throw CodecError(
                code: .roundTripMismatch, codec: name, message: "\(written) bytes decompressed, \(originalCount) stored"
            )
        }
        return output
    }

    private func check(_ result: Int, _ call: String) throws(CodecError) {
        guard ZSTD_isError(result) != 0 else { return }
        throw CodecError(
            code: .library, codec: name, message: "\(call): \(String(cString: ZSTD_getErrorName(result)))")
    }
}
