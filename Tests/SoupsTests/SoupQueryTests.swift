import LosslessJSON
import Soups
import Testing

@Suite struct SoupQueryTests {
    /// The `_soupEntryId`s of one page.
    private func ids(_ store: SoupStore, _ spec: QuerySpec, page: Int = 0) throws -> [Int64] {
        try store.query(spec, pageIndex: page).compactMap(\.entryId)
    }

    @Test func eachIndexTypeOrdersItsValuesAndPutsNullsFirst() throws {
        let fixture = try SoupFixture.withSoup(
            "items",
            [
                IndexSpec(path: "Name", type: .string), IndexSpec(path: "Amount", type: .integer),
                IndexSpec(path: "Value", type: .json1), IndexSpec(path: "Rating", type: .floating),
            ],
            [
                ["Name": "b", "Amount": 10, "Value": 10, "Rating": 2.5, "Other": "x"],
                ["Name": 9, "Amount": "9", "Value": "9", "Other": 3],
                ["Name": "B", "Amount": 2, "Value": nil, "Rating": -1],
                ["Name": "a", "Amount": -3, "Value": 2.5, "Other": nil],
                ["Name": "é", "Amount": 1e3, "Value": "abc", "Rating": 0, "Other": -1],
            ])
        defer { fixture.remove() }
        let store = fixture.store
        func order(_ path: String, _ order: QuerySpec.Order = .ascending) throws -> [Int64] {
            try ids(store, .all("items", orderPath: path, order: order, pageSize: 10))
        }
        // json1: null, then numbers numerically, then text byte-wise.
        #expect(try order("Value") == [3, 4, 1, 2, 5])
        #expect(try order("Value", .descending) == [5, 2, 1, 4, 3])
        // integer: text that is not a number is null; 1e3 is 1000.
        #expect(try order("Amount") == [2, 4, 3, 1, 5])
        // string: numbers as their text, then UTF-8 byte order (uppercase before lowercase).
        #expect(try order("Name") == [2, 3, 4, 1, 5])
        // floating, descending: nulls last, ties by _soupEntryId descending.
        #expect(try order("Rating", .descending) == [1, 5, 3, 4, 2])
        // No index: json_extract order over the records, missing and null first.
        #expect(try order("Other") == [3, 4, 5, 2, 1])
        // A filter on one index ordered by another.
        #expect(
            try ids(store, .range("items", path: "Amount", from: 0, to: nil, orderPath: "Name", pageSize: 10))
                == [3, 1, 5])
    }

    @Test func rangesAreInclusiveOpenAtEitherEndAndSkipNulls() throws {
        let fixture = try SoupFixture.withSoup(
            "items", [IndexSpec(path: "Amount", type: .integer)],
            [["Amount": 1], ["Amount": 5], ["Amount": 10], ["Other": 1]])
        defer { fixture.remove() }
        let store = fixture.store
        func range(_ lower: JSONValue?, _ upper: JSONValue?) throws -> [Int64] {
            try ids(store, .range("items", path: "Amount", from: lower, to: upper, pageSize: 10))
        }
        #expect(try range(nil, 5) == [1, 2])
        #expect(try range(5, nil) == [2, 3])
        #expect(try range(nil, nil) == [1, 2, 3, 4])
        #expect(try range(2.5, 7.9) == [2])
        #expect(try range("5", "10") == [2, 3])
        #expect(try range("x", nil).isEmpty)
        #expect(try range(10, 1).isEmpty)
        #expect(try ids(store, .exact("items", path: "Amount", value: 5.0)) == [2])
        #expect(try ids(store, .exact("items", path: "Amount", value: 5.5)).isEmpty)
        #expect(try store.count(.range("items", path: "Amount", from: 2, to: nil, pageSize: 1)) == 2)
    }

    @Test func pathsThroughArraysIndexTheProjectedArray() throws {
        let fixture = try SoupFixture.withSoup(
            "accounts",
            [
                IndexSpec(path: "Contacts.Name", type: .string), IndexSpec(path: "Contacts.Bio", type: .fullText),
            ],
            [
                ["Contacts": [["Name": "Ann", "Bio": "likes foxes"], ["Other": 1], ["Name": "Bob"]]],
                ["Contacts": [["Other": 1]]],
                ["Contacts": [["Name": "Cy", "Bio": "hates foxes"]]],
            ])
        defer { fixture.remove() }
        let store = fixture.store
        // SmartStore stores the projected array's JSON text in a string column.
        #expect(try ids(store, .exact("accounts", path: "Contacts.Name", value: ["Ann", "Bob"])) == [1])
        #expect(try ids(store, .like("accounts", path: "Contacts.Name", pattern: "%\"Bob\"%")) == [1])
        // Elements without the path are dropped; an array with none is no value at all.
        #expect(try ids(store, .range("accounts", path: "Contacts.Name", from: "", to: nil)) == [1, 3])
        #expect(try ids(store, .match("accounts", expression: "foxes NOT hates")) == [1])
        let selected = try store.query(
            QuerySpec(soupName: "accounts", filter: .all, pageSize: 3, selectPaths: ["Contacts.Name", "Missing"]))
        #expect(selected == [[["Ann", "Bob"], nil], [nil, nil], [["Cy"], nil]])
    }

    @Test(arguments: [
        QuerySpec.all("items", pageSize: 3),
        QuerySpec.all("items", orderPath: "Amount", order: .descending, pageSize: 3),
        QuerySpec.all("items", orderPath: "Unindexed", pageSize: 3),
        QuerySpec.range("items", path: "Amount", from: 2, to: nil, pageSize: 3),
        QuerySpec.range("items", path: "Amount", from: 2, to: nil, orderPath: "Amount", pageSize: 3),
        QuerySpec.range("items", path: "Amount", from: 2, to: nil, orderPath: "Name", order: .descending, pageSize: 3),
        QuerySpec.exact("items", path: "Group", value: "g", orderPath: "Group", order: .descending, pageSize: 3),
        QuerySpec.like("items", path: "Name", pattern: "n%", pageSize: 3),
        QuerySpec.match("items", expression: "item", orderPath: "Amount", pageSize: 3),
    ])
    func pagesSplitTheWholeResultWithoutGapsOrOverlap(spec: QuerySpec) throws {
        // Amounts repeat so that ties by _soupEntryId cross page boundaries.
        let fixture = try SoupFixture.withSoup(
            "items",
            [
                IndexSpec(path: "Amount", type: .integer), IndexSpec(path: "Name", type: .string),
                IndexSpec(path: "Group", type: .string), IndexSpec(path: "Text", type: .fullText),
            ],
            (0..<8).map { (position: Int) -> JSONValue in
                var fields: [String: JSONValue] = ["Group": "g"]
                fields["Amount"] = .number(JSONNumber(Int64(9 - position / 2)))
                fields["Name"] = .string("n\(position % 3)")
                fields["Text"] = .string("item \(position)")
                fields["Unindexed"] = .number(JSONNumber(Int64(position % 4)))
                return .object(fields)
            })
        defer { fixture.remove() }
        let store = fixture.store
        var whole = spec
        whole.pageSize = 100
        let all = try ids(store, whole)
        #expect(all.count == (try store.count(spec)))
        #expect(all.count >= 7)
        var pages: [[Int64]] = []
        for page in 0..<4 { pages.append(try ids(store, spec, page: page)) }
        #expect(pages.flatMap { $0 } == all)
        #expect(pages.dropLast().allSatisfy { $0.count == 3 || $0.count == all.count % 3 || $0.isEmpty })
        #expect(try ids(store, spec, page: 10).isEmpty)
        #expect(try store.query(spec, pageIndex: all.count / 3 + 1).isEmpty)
        expectError(.invalidQuery) { try store.query(spec, pageIndex: Int.max) }
        expectError(.invalidQuery) { try store.query(spec, pageIndex: -1) }
        var empty = spec
        empty.pageSize = 0
        expectError(.invalidQuery) { try store.query(empty) }
    }

    @Test func likeAndMatchHandleUnicode() throws {
        let fixture = try SoupFixture.withSoup(
            "notes", [IndexSpec(path: "Name", type: .string), IndexSpec(path: "Text", type: .fullText)],
            [
                ["Name": "École", "Text": "Café au lait"], ["Name": "école", "Text": "CAFÉ noir"],
                ["Name": "ecole", "Text": "naïve cafe"], ["Name": "中文字", "Text": "中文 text"],
                ["Name": "Straße", "Text": "Straße 5"],
            ])
        defer { fixture.remove() }
        let store = fixture.store
        func like(_ pattern: String) throws -> [Int64] {
            try ids(store, .like("notes", path: "Name", pattern: pattern, pageSize: 10))
        }
        func match(_ expression: String) throws -> [Int64] {
            try ids(store, .match("notes", expression: expression, pageSize: 10))
        }
        // LIKE folds ASCII case only, and `_` is one character, not one byte.
        #expect(try like("é%") == [2])
        #expect(try like("%COLE") == [1, 2, 3])
        #expect(try like("中_字") == [4])
        #expect(try like("STRAßE") == [5])
        #expect(try like("strasse").isEmpty)
        // Tokens are lowercased with Unicode's mapping and lose their Latin diacritics, as
        // FTS5's unicode61 tokenizer in SmartStore: `cafe` finds `café` and the other way round.
        #expect(try match("café") == [1, 2, 3])
        #expect(try match("cafe") == [1, 2, 3])
        #expect(try match("CAF*") == [1, 2, 3])
        #expect(try match("naïve") == [3])
        #expect(try match("naive") == [3])
        #expect(try match("ecole").isEmpty)
        #expect(try match("中文") == [4])
        #expect(try match("straße OR lait") == [1, 5])
    }

    /// SmartStore's match syntax: `{soup:path}:` column filters, phrases, prefixes, operators.
    @Test func matchExpressionsFilterByColumnAndMatchPhrasesInOrder() throws {
        let fixture = try SoupFixture.withSoup(
            "employees",
            [
                IndexSpec(path: "firstName", type: .fullText), IndexSpec(path: "lastName", type: .fullText),
                IndexSpec(path: "bio", type: .fullText), IndexSpec(path: "title", type: .string),
            ],
            [
                ["firstName": "Eva", "lastName": "Ng", "bio": "the quick brown fox jumps", "title": "CEO"],
                ["firstName": "Liam", "lastName": "Eva", "bio": "brown the quick fox", "title": "CTO"],
                ["firstName": "Evan", "lastName": "Smith", "bio": "reads e-mail and quick brownies"],
            ])
        defer { fixture.remove() }
        let store = fixture.store
        func match(_ expression: String, path: String? = nil) throws -> [Int64] {
            try ids(store, .match("employees", path: path, expression: expression, pageSize: 10))
        }
        #expect(try match("Eva") == [1, 2])
        #expect(try match("{employees:firstName}:Eva") == [1])
        #expect(try match("{employees:firstName}:Eva*") == [1, 3])
        #expect(try match("{employees:lastName}:Eva OR {employees:firstName}:Liam") == [2])
        #expect(try match("{employees:firstName}:(Eva OR Liam) NOT {employees:lastName}:Ng") == [2])
        #expect(try match("{employees:bio}:\"quick brown\"") == [1])
        #expect(try match("\"quick brown\"") == [1], "a phrase needs its tokens adjacent and in order")
        #expect(try match("\"quick bro*\"") == [1, 3])
        #expect(try match("quick brown") == [1, 2], "without quotes the terms may be anywhere")
        #expect(try match("e-mail") == [3], "a word of several tokens is a phrase")
        #expect(try match("\"mail e\"").isEmpty)
        #expect(try match("{employees:firstName}:Eva", path: "lastName").isEmpty, "the spec's path narrows too")
        #expect(try store.count(.match("employees", expression: "{employees:firstName}:Eva*")) == 2)

        for (expression, code) in [
            ("{employees:title}:CEO", SoupError.Code.noIndexForPath), ("{employees:nope}:x", .noIndexForPath),
            ("{others:firstName}:x", .invalidQuery), ("{firstName}:Eva", .invalidQuery),
            ("{employees:a:b}:x", .invalidQuery), ("{employees:firstName}Eva", .invalidQuery),
            ("{employees:firstName", .invalidQuery), ("{employees:firstName}:", .invalidQuery),
        ] {
            #expect(performing: { try match(expression) }, throws: { ($0 as? SoupError)?.code == code })
        }
    }
}
