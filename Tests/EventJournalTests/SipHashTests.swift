import EventJournal
import Testing

/// SipHash-2-4 against the reference vectors of its paper (key 00…0f, message 00…(n−1)).
@Suite struct SipHashTests {
    let sipHash = SipHash(key: Array(UInt8(0)...UInt8(15)))

    @Test func theReferenceVectorsOfTheEmptyAndTheFifteenByteMessageMatch() {
        let empty: [UInt8] = []
        #expect(empty.withUnsafeBytes { sipHash.hash($0) } == 0x726f_db47_dd0e_0e31)
        let fifteen = Array(UInt8(0)...UInt8(14))
        #expect(fifteen.withUnsafeBytes { sipHash.hash($0) } == 0xa129_ca61_49be_45e5)
    }

    @Test func twoPartsAndASeparatorHashAsTheWholeMessage() {
        let message = Array(UInt8(0)...UInt8(40))
        let whole = message.withUnsafeBytes { sipHash.hash($0) }
        for cut in [0, 1, 7, 8, 9, 20, 40] {
            let split = message[..<cut].withUnsafeBytes { first in
                message[(cut + 1)...].withUnsafeBytes { second in
                    sipHash.hash(first, separator: message[cut], second)
                }
            }
            #expect(split == whole, "cut at \(cut)")
        }
    }
}
