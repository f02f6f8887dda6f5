import CZlib

/// zlib's raw deflate (no zlib header or checksum: a store seals and checks its values itself) at
/// one level, with or without a preset dictionary.
///
/// A raw stream does not carry its length, so each compressed value counts the LEB128 length a
/// store would write before it.
final class DeflateCodec: RecordCodec {
    let name: String
    private let level: Int32
    private let dictionary: [UInt8]
    private let deflateStream: UnsafeMutablePointer<z_stream>
    private let inflateStream: UnsafeMutablePointer<z_stream>

    /// A codec at `level` (1 to 9) with `dictionary` (at most 32 KiB, deflate's window; empty for none).
    init(level: Int32, dictionary: [UInt8] = []) throws(CodecError) {
        precondition(dictionary.count <= 32 * 1024, "deflate sees at most its 32 KiB window of a dictionary")
        self.level = level
        self.dictionary = dictionary
        name = "deflate-\(level)" + (dictionary.isEmpty ? "" : "+dict")
        deflateStream = .allocate(capacity: 1)
        deflateStream.initialize(to: z_stream())
        inflateStream = .allocate(capacity: 1)
        inflateStream.initialize(to: z_stream())
        // Both streams are ended in deinit, which runs whether or not they initialised.
        try check(czlib_deflate_init_raw(deflateStream, level), "deflateInit2")
        try check(czlib_inflate_init_raw(inflateStream), "inflateInit2")
    }

    deinit {
        deflateEnd(deflateStream)
        inflateEnd(inflateStream)
        deflateStream.deallocate()
        inflateStream.deallocate()
    }

    func compress(_ input: [UInt8]) throws(CodecError) -> [UInt8] {
        try check(deflateReset(deflateStream), "deflateReset")
        try setDictionary(deflateSetDictionary, on: deflateStream, "deflateSetDictionary")
        var output = LEB128.encoded(input.count)
        let header = output.count
        let bound = Int(deflateBound(deflateStream, uLong(input.count)))
        output += [UInt8](repeating: 0, count: bound)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                deflateStream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                deflateStream.pointee.avail_in = uInt(source.count)
                deflateStream.pointee.next_out = target.baseAddress! + header
                deflateStream.pointee.avail_out = uInt(bound)
                return deflate(deflateStream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw failure("deflate", status) }
        output.removeLast(Int(deflateStream.pointee.avail_out))
        return output
    }

    func decompress(_ input: [UInt8], originalCount: Int) throws(CodecError) -> [UInt8] {
        try check(inflateReset(inflateStream), "inflateReset")
        // A raw stream takes its dictionary before the first inflate (zlib.h, inflateSetDictionary).
        try setDictionary(inflateSetDictionary, on: inflateStream, "inflateSetDictionary")
        let header = LEB128.encoded(originalCount).count
        var output = [UInt8](repeating: 0, count: originalCount)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                inflateStream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress! + header)
                inflateStream.pointee.avail_in = uInt(source.count - header)
                inflateStream.pointee.next_out = target.baseAddress
                inflateStream.pointee.avail_out = uInt(target.count)
                return inflate(inflateStream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, inflateStream.pointee.avail_out == 0 else { throw failure("inflate", status) }
        return output
    }

    /// Hands the dictionary to `stream` through `set` (`deflateSetDictionary` or `inflateSetDictionary`).
    private func setDictionary(
        _ set: (z_streamp?, UnsafePointer<Bytef>?, uInt) -> Int32, on stream: z_streamp, _ call: String
    ) throws(CodecError) {
        guard !dictionary.isEmpty else { return }
        let status = dictionary.withUnsafeBufferPointer { set(stream, $0.baseAddress, uInt($0.count)) }
        try check(status, call)
    }

    private func check(_ status: Int32, _ call: String) throws(CodecError) {
        guard status == Z_OK else { throw failure(call, status) }
    }

    private func failure(_ call: String, _ status: Int32) -> CodecError {
        CodecError(code: .library, codec: name, message: "\(call) returned \(status)")
    }
}
