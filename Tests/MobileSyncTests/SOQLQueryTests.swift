import Determinism
import MobileSync
import Testing

@Suite struct SOQLQueryTests {
    /// 2015-02-05T13:12:03.956-0800, the iOS test suite's concrete resync time.
    static let maxTimeStamp: Int64 = 1_423_170_723_956
    static let formatted = "2015-02-05T21:12:03.956+0000"
    /// The start of that second: where a reSync from that watermark asks from (decision 0321).
    static let secondStart = "2015-02-05T21:12:03.000+0000"
    static let window = ReSyncWindow(maxTimeStamp: maxTimeStamp)

    struct ReSyncVector: Sendable, CustomTestStringConvertible {
        var input: String
        var field: String
        var expected: String
        var testDescription: String { "\(input) [\(field)]" }
    }

    // Every vector of §2.4.2: the Android and iOS rows, the iOS CustomModDate repetitions, and
    // the OR-clause vector whose missing parentheses are pinned on purpose (decision 0302). The
    // predicate is ours: `>=` the start of the watermark's second where Mobile SDK has
    // `> watermark` (decision 0321); its place in the query is Mobile SDK's.
    static let reSyncVectors: [ReSyncVector] = {
        let d = secondStart
        var vectors = [
            ReSyncVector(
                input: "select Id from Account", field: "LastModifiedDate",
                expected: "select Id from Account where LastModifiedDate >= \(d)"),
            ReSyncVector(
                input: "select Id from Account", field: "otherDate",
                expected: "select Id from Account where otherDate >= \(d)"),
            ReSyncVector(
                input: "select Id from Account where Id != null or Name != null", field: "LastModifiedDate",
                expected: "select Id from Account where LastModifiedDate >= \(d) and Id != null or Name != null"),
        ]
        let shared: [(String, String)] = [
            ("select Id from Account limit 100", "select Id from Account where F >= \(d) limit 100"),
            ("select Id from Account where Name = 'John'", "select Id from Account where F >= \(d) and Name = 'John'"),
            (
                "select Id from Account where Name = 'John' limit 100",
                "select Id from Account where F >= \(d) and Name = 'John' limit 100"
            ),
            ("SELECT Id FROM Account", "select Id from Account where F >= \(d)"),
            ("SELECT Id FROM Account LIMIT 100", "select Id from Account where F >= \(d) limit 100"),
            ("SELECT Id FROM Account WHERE Name = 'John'", "select Id from Account where F >= \(d) and Name = 'John'"),
            (
                "SELECT Id FROM Account WHERE Name = 'John' LIMIT 100",
                "select Id from Account where F >= \(d) and Name = 'John' limit 100"
            ),
        ]
        for field in ["LastModifiedDate", "CustomModDate"] {
            for (input, expected) in shared {
                vectors.append(
                    ReSyncVector(
                        input: input, field: field, expected: expected.replacing("F >= ", with: "\(field) >= ")))
            }
        }
        vectors.append(
            ReSyncVector(
                input: "select Id from Account", field: "CustomModDate",
                expected: "select Id from Account where CustomModDate >= \(d)"))
        return vectors
    }()

    @Test(arguments: reSyncVectors)
    func addFilterForReSyncMatchesTheReferenceVectors(vector: ReSyncVector) throws {
        let query = try SOQLQuery.addFilterForReSync(
            vector.input, modificationDateFieldName: vector.field, window: Self.window)
        #expect(query == vector.expected)
    }

    @Test func aReSyncAsksFromTheStartOfTheWatermarksSecondMinusTheOverlap() throws {
        #expect(Self.window.modifiedSince == 1_423_170_723_000)
        #expect(Self.window.predicate(modificationDateFieldName: "F") == "F >= \(Self.secondStart)")
        let widened = ReSyncWindow(maxTimeStamp: Self.maxTimeStamp, overlapSeconds: 90)
        #expect(widened.modifiedSince == 1_423_170_633_000)
        #expect(widened.predicate(modificationDateFieldName: "F") == "F >= 2015-02-05T21:10:33.000+0000")
        #expect(ReSyncWindow(maxTimeStamp: 5_000, overlapSeconds: 60).modifiedSince == 0, "never before the epoch")
        for watermark in [Int64(0), -1] {
            let full = ReSyncWindow(maxTimeStamp: watermark, overlapSeconds: 60)
            #expect(!full.isIncremental)
            #expect(full.predicate(modificationDateFieldName: "F") == nil)
        }
        let query = try SOQLQuery.addFilterForReSync(
            "select Id from Account", modificationDateFieldName: "LastModifiedDate", window: widened)
        #expect(query == "select Id from Account where LastModifiedDate >= 2015-02-05T21:10:33.000+0000")
    }

    @Test func formatsTheReSyncTimeInUTC() {
        #expect(WallTime(iso8601: "2015-02-05T13:12:03.956-0800")?.millisecondsSinceEpoch == Self.maxTimeStamp)
        #expect(WallTime(millisecondsSinceEpoch: Self.maxTimeStamp).salesforceFormat == Self.formatted)
    }

    @Test(arguments: [Int64(0), -1, -500])
    func addFilterForReSyncLeavesTheQueryAloneWithoutAWatermark(maxTimeStamp: Int64) throws {
        let query = "SELECT Id FROM Account WHERE Name = 'John'"
        let result = try SOQLQuery.addFilterForReSync(
            query, modificationDateFieldName: "LastModifiedDate",
            window: ReSyncWindow(maxTimeStamp: maxTimeStamp, overlapSeconds: 30))
        #expect(result == query)
    }

    @Test(arguments: [
        ("SELECT Name FROM Account", "select Id,LastModifiedDate,Name from Account order by LastModifiedDate"),
        ("SELECT Id, Name FROM Account", "select LastModifiedDate,Id, Name from Account order by LastModifiedDate"),
        (
            "select Id, LastModifiedDate from Account order by Name",
            "select Id, LastModifiedDate from Account order by Name"
        ),
        (
            "select Id,LastModifiedDate from Account where Name = 'a' limit 5",
            "select Id,LastModifiedDate from Account where Name = 'a' order by LastModifiedDate limit 5"
        ),
        ("", ""),
    ])
    func normalizesQueriesAtConstruction(input: String, expected: String) throws {
        let query = try SOQLQuery.normalizedForSyncDown(
            input, idFieldName: "Id", modificationDateFieldName: "LastModifiedDate")
        #expect(query == expected)
    }

    @Test func keepsAnAlreadyNormalQueryVerbatim() throws {
        let input = "SELECT Id, LastModifiedDate FROM Account ORDER BY LastModifiedDate"
        let query = try SOQLQuery.normalizedForSyncDown(
            input, idFieldName: "Id", modificationDateFieldName: "LastModifiedDate")
        #expect(query == input)
    }

    @Test func subQueryFieldsDoNotCountAsSelected() throws {
        let query = try SOQLQuery(parsing: "select Name, (select Id from Contacts) from Account")
        #expect(!query.isSelectingField("Id"))
        #expect(query.isSelectingField("Name"))
    }

    @Test func keywordsInsideStringsAndGroupsAreNotClauses() throws {
        let query = try SOQLQuery(
            parsing: "select Id from Account where Name = 'x where y' and Id IN (select AccountId from Contact)")
        #expect(
            try query.build()
                == "select Id from Account where Name = 'x where y' and Id IN (select AccountId from Contact)")
    }

    @Test func escapedQuoteDoesNotCloseAString() throws {
        let query = try SOQLQuery(parsing: #"select Id from Account where Name = 'O\'Brien limit 3'"#)
        #expect(try query.build() == #"select Id from Account where Name = 'O\'Brien limit 3'"#)
    }

    @Test func orderingIsComparedWithoutSpaces() throws {
        #expect(try SOQLQuery(parsing: "select Id from A order by LastModifiedDate").isOrderingBy("LastModifiedDate"))
        #expect(
            try !SOQLQuery(parsing: "select Id from A order by LastModifiedDate DESC").isOrderingBy("LastModifiedDate"))
        #expect(try !SOQLQuery(parsing: "select Id from A").hasOrderBy)
    }

    @Test func remoteIdsQueryKeepsTheFilterAndDropsTheOrder() throws {
        let query = try SOQLQuery.remoteIdsQuery(
            "select Id,LastModifiedDate,Name from Account where Name like 'A%' order by LastModifiedDate limit 10",
            idFieldName: "Id")
        #expect(query == "select Id from Account where Name like 'A%' limit 10")
    }

    // Decision 0306: tabs and line breaks separate words too (Mobile SDK splits on spaces only
    // and would read "Id\nfrom" as one field), so a multi-line query keeps its clauses.
    @Test(arguments: [
        ("select Id\nfrom Account", "select Id from Account where LastModifiedDate >= \(secondStart)"),
        (
            "SELECT Id\r\nFROM Account\n\tWHERE Name = 'a'\nORDER\nBY Name",
            "select Id from Account where LastModifiedDate >= \(secondStart) and Name = 'a' order by Name"
        ),
    ])
    func tabsAndLineBreaksSeparateWords(input: String, expected: String) throws {
        let query = try SOQLQuery.addFilterForReSync(
            input, modificationDateFieldName: "LastModifiedDate", window: Self.window)
        #expect(query == expected)
    }

    @Test(arguments: [
        "select Id from Account where Name = 'unterminated",
        "select Id from Account where Id IN ('a'",
        "select Id from Account where Id = 'a')",
        "Id from Account",
        "select Id from Account where a = 1 where b = 2",
        "select Id from Account limit ten",
        "select from Account",
        "select Id",
        "select Id from Account where " + String(repeating: "(", count: 100) + String(repeating: ")", count: 100),
    ])
    func malformedQueriesThrowTypedErrors(text: String) {
        #expect {
            try SOQLQuery.addFilterForReSync(
                text, modificationDateFieldName: "LastModifiedDate", window: ReSyncWindow(maxTimeStamp: 1))
        } throws: { error in
            (error as? SyncError)?.code == .malformedQuery
        }
    }

    @Test func builderWritesClausesInOrderAndSkipsEmptyOnes() throws {
        var builder = SOQLBuilder(fields: ["Id", "Name"], from: "Account")
        builder.where = "Name != null"
        builder.groupBy = ""
        builder.having = nil
        builder.orderBy = "Name"
        builder.limit = 0
        builder.offset = 20
        #expect(try builder.build() == "select Id, Name from Account where Name != null order by Name offset 20")
    }

    @Test func builderRefusesMissingFieldsAndTable() {
        #expect {
            try SOQLBuilder(fields: [], from: "Account").build()
        } throws: { ($0 as? SyncError)?.message == "No field selected" }
        #expect {
            try SOQLBuilder(fields: ["Id"], from: "").build()
        } throws: { ($0 as? SyncError)?.message == "No table specified" }
    }
}
