import SalesforceAPI
import Testing

@Suite struct SalesforceIDTests {
    @Test(arguments: [
        ("a0RE000000IJmcN", "a0RE000000IJmcNMAT"), ("a01M00000062mPg", "a01M00000062mPgIAI"),
        ("001M000000qfPyS", "001M000000qfPySIAU"), ("0F9E000000092w2", "0F9E000000092w2KAA"),
        ("aaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaAAA"), ("AbCdEfGhIjKlMnO", "AbCdEfGhIjKlMnOVKV"),
        ("aBcDEfgHIJKLMNO", "aBcDEfgHIJKLMNO025"), ("001D000000IqhSL", "001D000000IqhSLIAZ"),
        ("001Hs00000AbC01", "001Hs00000AbC01IAF"),
    ])
    func shortIDGainsTheCaseChecksumSuffix(short: String, long: String) throws {
        #expect(SalesforceID(short)?.rawValue == long)
        #expect(SalesforceID(long)?.rawValue == long)
    }

    @Test func suffixIsCaseInsensitiveButChecked() {
        #expect(SalesforceID("001Hs00000AbC01iaf")?.rawValue == "001Hs00000AbC01IAF")
        #expect(SalesforceID("a00B000000FSjVUIB1") == nil)
        #expect(SalesforceID("local_123") == nil)
        #expect(SalesforceID("001Hs00000AbC0") == nil)
    }

    @Test func mintedIDsAreValidAndSortInCounterOrder() {
        let ids = (1...200).map { SalesforceID(keyPrefix: "003", counter: UInt64($0)) }
        #expect(ids.allSatisfy { SalesforceID($0.rawValue) == $0 && $0.keyPrefix == "003" })
        #expect(ids == ids.sorted())
    }
}
