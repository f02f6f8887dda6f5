/// Unsigned LEB128, the variable-length integer a store writes before a value whose format does
/// not carry its own length (raw deflate).
enum LEB128 {
    /// `value` in seven-bit groups, least significant first, the high bit set on all but the last.
    static func encoded(_ value: Int) -> [UInt8] {
        precondition(value >= 0, "lengths are not negative")
        var rest = UInt(value)
        var bytes: [UInt8] = []
        repeat {
            let group = UInt8(rest & 0x7F)
            rest >>= 7
            bytes.append(rest == 0 ? group : group | 0x80)
        } while rest != 0
        return bytes
    }
}
