import LosslessJSON
import Testing

@testable import Soups

@Suite struct IndexValueTests {
    private func isSorted(_ values: [IndexValue]) -> Bool {
        let encoded = values.map(\.encoded)
        return zip(encoded, encoded.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }
    }

    @Test func integersEncodeInNumericOrderIncludingNegatives() {
        let values: [Int64] = [.min, -1_000_000, -2, -1, 0, 1, 2, 255, 256, 1_000_000, .max]
        #expect(isSorted([.null] + values.map(IndexValue.integer)))
    }

    @Test func floatingEncodesInNumericOrderIncludingNegativesAndInfinities() {
        let values: [Double] = [-.infinity, -1e300, -2.5, -1, -0.5, -1e-300, 0, 1e-300, 0.5, 1, 2.5, 1e300, .infinity]
        #expect(isSorted([.null] + values.map(IndexValue.floating)))
        #expect(IndexValue.floating(-0.0).encoded == IndexValue.floating(0).encoded)
    }

    @Test func textEncodesByteWiseWithPrefixesFirstAndNulBytesEscaped() {
        let values = ["", "\u{0}", "\u{0}a", "A", "B", "a", "ab", "abc", "b", "é", "中"]
        #expect(isSorted([.null] + values.map(IndexValue.text)))
    }

    @Test func json1OrdersNullsThenNumbersThenText() {
        let values: [JSONValue] = [nil, -3, false, true, 2.5, "10", ["x"], "a"]
        #expect(isSorted(values.map { IndexValue.extract($0, as: .json1) }))
    }

    @Test func encodedValuesDecodeBack() {
        let values: [IndexValue] = [.null, .text("a\u{0}b"), .text(""), .integer(-7)]
        for value in values {
            let decoded = IndexValue.decode(value.encoded[...], numbersAreIntegers: true)
            #expect(decoded?.value == value)
            #expect(decoded?.length == value.encoded.count)
        }
        #expect(
            IndexValue.decode(IndexValue.floating(-2.5).encoded[...], numbersAreIntegers: false)?.value
                == .floating(-2.5))
        #expect(IndexValue.decode([0x02, 0x61][...], numbersAreIntegers: false) == nil)
    }

    @Test func columnsConvertValuesAsSmartStoreDoes() {
        #expect(IndexValue.extract(true, as: .string) == .text("true"))
        #expect(IndexValue.extract(12, as: .string) == .text("12"))
        #expect(IndexValue.extract("12", as: .integer) == .null)
        #expect(IndexValue.extract(3.9, as: .integer) == .integer(3))
        #expect(IndexValue.extract(["a", "b"], as: .string) == .text("[\"a\",\"b\"]"))
        #expect(IndexValue.extract(nil, as: .floating) == .null)
    }

    @Test func integerOperandsRoundTowardTheRange() {
        #expect(IndexValue.operand(2.5, for: .integer, rounding: .up) == .integer(3))
        #expect(IndexValue.operand(2.5, for: .integer, rounding: .down) == .integer(2))
        #expect(IndexValue.operand(2.5, for: .integer, rounding: .exact) == nil)
        #expect(IndexValue.operand("7", for: .integer, rounding: .exact) == .integer(7))
        #expect(IndexValue.operand("seven", for: .floating, rounding: .exact) == nil)
    }
}
