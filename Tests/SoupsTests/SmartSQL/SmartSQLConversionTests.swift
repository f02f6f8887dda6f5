import LosslessJSON
import Soups
import Testing

/// One test per conversion rule of Smart SQL, and its refusals with their positions.
@Suite struct SmartSQLConversionTests {
    private func convert(_ sql: String) throws -> String {
        try SmartSQLFixture().store.convertSmartSQL(sql)
    }

    private func expectRefusal(
        _ sql: String, _ code: SoupError.Code, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let fixture = try SmartSQLFixture()
        #expect(sourceLocation: sourceLocation) {
            try fixture.store.query(.smart(sql: sql))
        } throws: { error in
            (error as? SoupError)?.code == code && "\(error)" == message
        }
    }

    @Test func aSoupInBracesIsItsTable() throws {
        #expect(try convert("select * from {departments}") == "select * from TABLE_2")
    }

    @Test func anIndexedPathIsItsIndexColumnUnqualified() throws {
        #expect(try convert("select {departments:budget} from {departments}") == "select TABLE_2_2 from TABLE_2")
    }

    @Test func anAliasStaysBeforeAnIndexColumn() throws {
        #expect(try convert("select d.{departments:name} from {departments} d") == "select d.TABLE_2_1 from TABLE_2 d")
    }

    @Test func specialPathsAreTheTablesColumnsQualifiedByTheTable() throws {
        #expect(
            try convert("select {departments:_soup}, {departments:_soupEntryId} from {departments}")
                == "select TABLE_2.soup, TABLE_2.id from TABLE_2")
        #expect(
            try convert("select {departments:_soupLastModifiedDate}, {departments:_soupCreatedDate} from {departments}")
                == "select TABLE_2.lastModified, TABLE_2.created from TABLE_2")
    }

    @Test func specialPathsAfterAnAliasAreUnqualified() throws {
        #expect(try convert("select d.{departments:_soup} from {departments} d") == "select d.soup from TABLE_2 d")
    }

    @Test func aJSON1IndexIsJSONExtractOfTheRecord() throws {
        #expect(
            try convert("select {departments:building} from {departments}")
                == "select json_extract(soup, '$.building') from TABLE_2")
    }

    @Test func aPathWithoutAnIndexIsJSONExtractOfTheRecord() throws {
        #expect(
            try convert("select {departments:address.city} from {departments}")
                == "select json_extract(soup, '$.address.city') from TABLE_2")
    }

    @Test func anAliasMovesInsideJSONExtract() throws {
        #expect(
            try convert("select d.{departments:building} from {departments} d")
                == "select json_extract(d.soup, '$.building') from TABLE_2 d")
    }

    @Test func aQuoteInAPathIsEscaped() throws {
        #expect(
            try convert("select {departments:o'brien} from {departments}")
                == "select json_extract(soup, '$.o''brien') from TABLE_2")
    }

    @Test func bracesInQuotedStringsStay() throws {
        #expect(
            try convert("select '{departments}', {departments:name} from {departments}")
                == "select '{departments}', TABLE_2_1 from TABLE_2")
        #expect(
            try convert("select 'it''s {departments}' from {departments}")
                == "select 'it''s {departments}' from TABLE_2")
    }

    @Test func bracesInAMatchOperandAreConverted() throws {
        #expect(
            try convert("select * from {departments} where x MATCH '{departments:name}:bob'")
                == "select * from TABLE_2 where x MATCH 'TABLE_2_1:bob'")
    }

    @Test func anUnknownSoupNamesItselfAndItsPosition() throws {
        try expectRefusal("select * from {nope}", .unknownSoup, "Unknown soup 'nope' at character 14")
        try expectRefusal(
            "select {employees:name} from {employees}, {nope}", .unknownSoup, "Unknown soup 'nope' at character 42")
    }

    @Test(arguments: [
        ("select {employees:a:b} from {employees}", "Invalid soup/path reference {employees:a:b} at character 7"),
        ("select {employees:} from {employees}", "Invalid soup/path reference {employees:} at character 7"),
        ("select {:name} from {employees}", "Invalid soup/path reference {:name} at character 7"),
        ("select {} from {employees}", "Invalid soup/path reference {} from {employees} at character 7"),
        ("select * from {employees", "Invalid soup/path reference {employees at character 14"),
    ])
    func aMalformedReferenceNamesItselfAndItsPosition(sql: String, message: String) throws {
        try expectRefusal(sql, .invalidSmartSQL, message)
    }

    @Test(arguments: [
        "drop table {employees}", "pragma table_info({employees})", "attach ':memory:' as x", "vacuum", "",
        "explain select 1",
    ])
    func anythingButASelectIsRefused(sql: String) throws {
        try expectRefusal(sql, .invalidSmartSQL, "Only SELECT are supported")
    }

    @Test func twoStatementsAreRefusedBySQLite() throws {
        let fixture = try SmartSQLFixture()
        expectError(.invalidSmartSQL) { try fixture.store.query(.smart(sql: "select 1; delete from {employees}")) }
    }

    @Test func aTrailingSemicolonAndCommentAreFine() throws {
        let fixture = try SmartSQLFixture()
        #expect(try fixture.store.query(.smart(sql: "select 1 -- one\n;")) == [[1]])
        #expect(try fixture.store.query(.smart(sql: "select 2 -- two")) == [[2]])
    }

    @Test func sqliteErrorsCarryItsMessage() throws {
        let fixture = try SmartSQLFixture()
        #expect {
            try fixture.store.query(.smart(sql: "select nosuchcolumn from {employees}"))
        } throws: { error in
            (error as? SoupError)?.code == .invalidSmartSQL
                && "\(error)".hasPrefix("SQLite: no such column: nosuchcolumn, in: SELECT * FROM (")
        }
    }

    @Test func argumentsMustMatchTheParameters() throws {
        let fixture = try SmartSQLFixture()
        expectError(.invalidSmartSQL) { try fixture.store.query(.smart(sql: "select ?, ?", args: [1])) }
        expectError(.invalidSmartSQL) { try fixture.store.query(.smart(sql: "select 1", args: [1])) }
        #expect(try fixture.store.query(.smart(sql: "select ?, ?", args: [1, "a"])) == [[1, "a"]])
    }

    @Test func tablesNamedWithoutBracesRunToo() throws {
        let fixture = try SmartSQLFixture()
        try fixture.loadData()
        #expect(try fixture.store.query(.smart(sql: "select count(*) from TABLE_2")) == [[2]])
    }

    @Test func aRecordSelectedTwiceInAJoinIsAnObjectBothTimes() throws {
        let fixture = try SmartSQLFixture()
        try fixture.loadData()
        let rows = try fixture.rows(
            "select {employees:_soup}, {departments:_soup} from {employees}, {departments} "
                + "where {employees:deptCode} = {departments:deptCode} and {employees:lastName} = 'Kwan'")
        #expect(rows.first?.array?[0]["lastName"] == "Kwan")
        #expect(rows.first?.array?[1]["name"] == "Sales")
    }

    @Test func smartQueriesAreRefusedWhereRecordsAreExpected() throws {
        let fixture = try SmartSQLFixture()
        expectError(.invalidQuery) { try fixture.store.deleteByQuery(.smart(sql: "select 1")) }
        expectError(.invalidQuery) { try fixture.store.explainSmartQuery(.all("employees")) }
    }

    @Test func badPagesAreRefused() throws {
        let fixture = try SmartSQLFixture()
        expectError(.invalidQuery) { try fixture.store.query(.smart(sql: "select 1", pageSize: 0)) }
        expectError(.invalidQuery) { try fixture.store.query(.smart(sql: "select 1"), pageIndex: -1) }
    }
}
