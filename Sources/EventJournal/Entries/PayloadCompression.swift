import CZstd

/// zstd at level 3 for the payloads of journal entries (decisions 0028, 0029).
///
/// A sync-down page of 2,000 org-shaped records compresses 6.6× this way, with nothing to train
/// or keep: the page is its own dictionary. Small payloads are stored as they are, since a frame
/// of a few hundred bytes saves little and costs a context either way.
///
/// zstd's contexts are not thread-safe and are costly to make (hundreds of KiB each), so each
/// call borrows one from a small pool and gives it back. Compression is deterministic for a given
/// zstd version and level, but nothing depends on that: an entry's identity (its export line,
/// its canonical checksum) is computed over the uncompressed envelope, and a stored entry is
/// never compressed again.
enum PayloadCompression {
    /// The zstd level: 3, zstd's default, measured best on pages (decision 0028).
    static let level: Int32 = 3
    /// Payloads shorter than this are stored uncompressed.
    static let minimumPayloadBytes = 512

    /// `payload` as one zstd frame, when that is at least 1/16 smaller; `nil` to store it as it is.
    static func compressed(_ payload: [UInt8]) -> [UInt8]? {
        guard payload.count >= minimumPayloadBytes else { return nil }
        let bound = ZSTD_compressBound(payload.count)
        guard ZSTD_isError(bound) == 0 else { return nil }
        return ZstdContextPool.compression.withContext { context -> [UInt8]? in
            guard let context else { return nil }
            var failed = false
            let frame = [UInt8](unsafeUninitializedCapacity: bound) { output, written in
                let result = payload.withUnsafeBytes { input in
                    ZSTD_compressCCtx(context, output.baseAddress, output.count, input.baseAddress, input.count, level)
                }
                failed = ZSTD_isError(result) != 0
                written = failed ? 0 : result
            }
            guard !failed, frame.count <= payload.count - payload.count / 16 else { return nil }
            return frame
        }
    }

    /// The payload of `count` bytes that `frame` holds, or `nil` when `frame` is not one zstd
    /// frame of exactly `count` bytes.
    static func decompressed(_ frame: UnsafeRawBufferPointer, count: Int) -> [UInt8]? {
        guard count > 0 else { return nil }
        return ZstdContextPool.decompression.withContext { context -> [UInt8]? in
            guard let context else { return nil }
            var failed = false
            let payload = [UInt8](unsafeUninitializedCapacity: count) { output, written in
                let result = ZSTD_decompressDCtx(
                    context, output.baseAddress, output.count, frame.baseAddress, frame.count)
                failed = ZSTD_isError(result) != 0 || result != count
                written = failed ? 0 : result
            }
            return failed ? nil : payload
        }
    }
}
