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
                "hello", "world", "ecole", "cafe", "au", "lait", "42x",
            ])
        #expect(FullTextTokenizer.tokens("  ...  ").isEmpty)
    }

    /// unicode61 with `remove_diacritics 1`: one diacritic on a Latin letter goes, whether the
    /// letter is precomposed or followed by a combining mark; letters with two diacritics,
    /// letters without a decomposition (`ø`, `ł`) and other scripts stay as they are.
    @Test(arguments: [
        ("Ångström", ["angstrom"]), ("naïve Über", ["naive", "uber"]), ("e\u{301}cole", ["ecole"]),
        ("Nguyễn", ["nguyễn"]), ("Søren Łódź", ["søren", "łodz"]), ("Ελλάδα", ["ελλάδα"]), ("中文", ["中文"]),
    ])
    func tokenizerFoldsLatinDiacriticsAsUnicode61Does(text: String, tokens: [String]) {
        #expect(FullTextTokenizer.tokens(text) == tokens)
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

    @Test func columnFiltersAndPhrasesParseAsSmartStoreWritesThem() throws {
        #expect(
            try MatchExpression.parse("{employees:firstName}:Eva")
                == .column(soup: "employees", path: "firstName", .term("eva", isPrefix: false)))
        #expect(
            try MatchExpression.parse("{e:bio}:\"Quick bro*\" fox")
                == .and(
                    .column(
                        soup: "e", path: "bio",
                        .phrase([.init(text: "quick", isPrefix: false), .init(text: "bro", isPrefix: true)])),
                    .term("fox", isPrefix: false)))
        #expect(
            try MatchExpression.parse("{e:a}:(x OR y)")
                == .column(soup: "e", path: "a", .or(.term("x", isPrefix: false), .term("y", isPrefix: false))))
        #expect(
            try MatchExpression.parse("e-mail*")
                == .phrase([.init(text: "e", isPrefix: false), .init(text: "mail", isPrefix: true)]))
    }

    @Test(arguments: [
        "", "a OR", "(a", "a)", "\"a", "AND a", "...", String(repeating: "(", count: 40) + "a", "{a:b}x", "{a}:x",
        "{a:b", "{:b}:x", "{a:b}:", String(repeating: "{a:b}:", count: 40) + "x",
    ])
    func malformedMatchExpressionsAreRefused(expression: String) {
        #expect(throws: SoupError.self) { try MatchExpression.parse(expression) }
    }
}
