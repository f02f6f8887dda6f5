import CZstd
import EventJournal

/// A soup's zstd dictionary, digested once for compressing and once for opening record values
/// (decision 0030).
///
/// zstd's digested dictionaries (`ZSTD_CDict`, `ZSTD_DDict`) are read-only once made and may be
/// shared by any number of threads, each with a context of its own (zstd.h: "a digested
/// dictionary ... can be used by multiple threads concurrently"). Digesting a 32 KiB dictionary
/// costs far more than compressing one record with it, so a store makes each once per open
/// (``RecordDictionaryCache``).
// @unchecked because of the two C pointers: zstd never writes to a digested dictionary after
// it is made, and `deinit` frees them only when no call can hold them any more.
final class RecordDictionary: @unchecked Sendable {
    /// The dictionary's id in its soup, named by the header of each value it compressed.
    let id: UInt32
    /// The dictionary as journaled.
    let bytes: [UInt8]
    private let compressionDictionary: OpaquePointer
    private let decompressionDictionary: OpaquePointer

    /// The zstd level of record values: 1, which with a dictionary gives 4.97× on org-shaped
    /// records at 8.5 µs a record, against zstd-3's 5.45× at 11.7 µs (decision 0028).
    static let level: Int32 = 1

    /// Digests `bytes`; `nil` when zstd cannot (allocation failure or not a dictionary).
    init?(id: UInt32, bytes: [UInt8]) {
        guard !bytes.isEmpty else { return nil }
        let digested = bytes.withUnsafeBytes { raw -> (OpaquePointer?, OpaquePointer?) in
            (
                ZSTD_createCDict(raw.baseAddress, raw.count, Self.level),
                ZSTD_createDDict(raw.baseAddress, raw.count)
            )
        }
        guard let compression = digested.0, let decompression = digested.1 else {
            if let compression = digested.0 { ZSTD_freeCDict(compression) }
            if let decompression = digested.1 { ZSTD_freeDDict(decompression) }
            return nil
        }
        self.id = id
        self.bytes = bytes
        compressionDictionary = compression
        decompressionDictionary = decompression
    }

    deinit {
        ZSTD_freeCDict(compressionDictionary)
        ZSTD_freeDDict(decompressionDictionary)
    }

    /// `value` as one zstd frame made with this dictionary, or `nil` when zstd fails.
    func compressed(_ value: [UInt8]) -> [UInt8]? {
        let bound = ZSTD_compressBound(value.count)
        guard ZSTD_isError(bound) == 0 else { return nil }
        return ZstdContextPool.compression.withContext { context -> [UInt8]? in
            guard let context else { return nil }
            var failed = false
            let frame = [UInt8](unsafeUninitializedCapacity: bound) { output, written in
                let result = value.withUnsafeBytes { input in
                    ZSTD_compress_usingCDict(
                        context, output.baseAddress, output.count, input.baseAddress, input.count,
                        compressionDictionary)
                }
                failed = ZSTD_isError(result) != 0
                written = failed ? 0 : result
            }
            return failed ? nil : frame
        }
    }

    /// The value `frame` holds, or `nil` when `frame` is not one zstd frame made with this
    /// dictionary, or declares a size beyond `valueBytesMax`.
    func decompressed(_ frame: UnsafeRawBufferPointer, valueBytesMax: Int) -> [UInt8]? {
        let declared = ZSTD_getFrameContentSize(frame.baseAddress, frame.count)
        // `ZSTD_CONTENTSIZE_UNKNOWN` and `ZSTD_CONTENTSIZE_ERROR` are the two largest values.
        guard declared < UInt64.max - 1, declared <= UInt64(valueBytesMax) else { return nil }
        let count = Int(declared)
        return ZstdContextPool.decompression.withContext { context -> [UInt8]? in
            guard let context else { return nil }
            var failed = false
            let value = [UInt8](unsafeUninitializedCapacity: count) { output, written in
                let result = ZSTD_decompress_usingDDict(
                    context, output.baseAddress, output.count, frame.baseAddress, frame.count,
                    decompressionDictionary)
                failed = ZSTD_isError(result) != 0 || result != count
                written = failed ? 0 : result
            }
            return failed ? nil : value
        }
    }
}
