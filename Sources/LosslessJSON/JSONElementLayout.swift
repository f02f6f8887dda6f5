/// Where one element of a parsed top-level array lies in the input, and whether its bytes are
/// exactly what ``JSONValue/serialized()`` writes for it.
///
/// A fold that stores records as their serialization can then take an element's bytes from the
/// input instead of serializing the parsed value again, but only when ``isSerialized`` says the
/// two are the same bytes.
package struct JSONElementLayout: Sendable, Hashable {
    /// The element's bytes in the input.
    package var span: Range<Int>
    /// Whether ``span`` holds exactly the element's serialization: no white space, object keys
    /// in strictly increasing UTF-8 byte order (so none repeated), and no escape in any string.
    /// Conservative: some serialized forms (a string with an escaped quote) are not recognized.
    package var isSerialized: Bool
    /// For an object element, the offset of each member's opening quote, in order; empty for
    /// other elements and for `{}`.
    package var memberOffsets: [Int]
    /// For an object element, the offset of its closing brace.
    package var closeOffset: Int?
}
