import Testing

@testable import Soups

@Suite struct TextMatchingTests {
    @Test(arguments: [
        ("abc", "abc", true), ("abc", "ABC", true), ("a%", "abc", true), ("%c", "abc", true), ("%b%", "abc", true),
        ("a_c", "abc", true), ("a_c", "ac", false), ("%", "", true), ("_", "", false), ("a%b%c", "aXbYc", true),
        ("a%b%c", "aXbY", false), ("%%a", "ba", true), ("é%", "École", false), ("é%", "école", true),
        ("_cole", "école", true), ("中_", "中文", true), ("ÉCOLE", "école", false),
    ])
    func likeFollowsSQLiteRules(pattern: String, text: String, matches: Bool) {
        #expect(LikePattern(pattern).matches(text) == matches)
    }

    @Test func tokenizerSplitsOnNonLettersAndLowercasesUnicode() {
        #expect(
            FullTextTokenizer.tokens("Hello, World! ÉCOLE café-au-lait 42x") == [
                "hello", "world", "école", "café", "au", "lait", "42x",
            ])
        #expect(FullTextTokenizer.tokens("  ...  ").isEmpty)
    }

    @Test func matchExpressionsParseWithFTS5Precedence() throws {
        #expect(try MatchExpression.parse("a b") == .and(.term("a", isPrefix: false), .term("b", isPrefix: false)))
        #expect(
            try MatchExpression.parse("a OR b c")
                == .or(.term("a", isPrefix: false), .and(.term("b", isPrefix: false), .term("c", isPrefix: false))))
        #expect(
            try MatchExpression.parse("a NOT b*")
                == .not(.term("a", isPrefix: false), .term("b", isPrefix: true)))
        #expect(
            try MatchExpression.parse("(a OR b) AND c")
                == .and(.or(.term("a", isPrefix: false), .term("b", isPrefix: false)), .term("c", isPrefix: false)))
    }

    @Test(arguments: ["", "a OR", "(a", "a)", "\"a", "AND a", "...", String(repeating: "(", count: 40) + "a"])
    func malformedMatchExpressionsAreRefused(expression: String) {
        #expect(throws: SoupError.self) { try MatchExpression.parse(expression) }
    }
}
