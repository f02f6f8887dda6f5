/// A compressor for stored values, as the codec benchmark measures it: each call compresses or
/// decompresses one value on its own, as a store would hold a record or a journal page entry.
///
/// A codec keeps its contexts (and its dictionary, if it has one) between calls, as a store would,
/// so a call measures the work per value and not a context's setup.
protocol RecordCodec: AnyObject {
    /// How the figures and the lines name this codec, e.g. `deflate-6+dict`.
    var name: String { get }

    /// `input` compressed, as the value a store would write (header included).
    func compress(_ input: [UInt8]) throws(CodecError) -> [UInt8]

    /// `input`, which ``compress(_:)`` wrote, decompressed.
    ///
    /// - Parameter originalCount: the decompressed length, which a store knows from the value's
    ///   header; a codec whose format does not carry it counts that header in ``compress(_:)``.
    func decompress(_ input: [UInt8], originalCount: Int) throws(CodecError) -> [UInt8]
}
