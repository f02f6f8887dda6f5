/// A codec that failed the codec benchmark: its library reported an error, or a value did not
/// come back byte for byte from compress then decompress.
struct CodecError: Error, CustomStringConvertible {
    /// What went wrong, in the terms a fix starts from.
    enum Code: Sendable {
        /// The C library returned an error code (its message says which).
        case library
        /// `decompress(compress(x)) != x` for some value `x`.
        case roundTripMismatch
        /// The dictionary could not be built from the sample.
        case dictionaryTraining
    }

    var code: Code
    /// The codec's name, as the figures key it.
    var codec: String
    var message: String

    var description: String {
        "\(codec): \(message)"
    }
}
