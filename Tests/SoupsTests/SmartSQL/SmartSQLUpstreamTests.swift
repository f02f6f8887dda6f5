import LosslessJSON
import Soups
import Testing

/// Every query of Mobile SDK's SmartSqlTest (Android) and SFSmartSqlTests (iOS), on their data,
/// with the rows they expect.
@Suite struct SmartSQLUpstreamTests {
    // MARK: - Conversion

    @Test func convertsSoupAndFieldReferencesToTablesAndIndexColumns() throws {
        let fixture = try SmartSQLFixture()
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees:firstName}, {employees:lastName} from {employees} order by {employees:lastName}")
                == "select TABLE_1_0, TABLE_1_1 from TABLE_1 order by TABLE_1_1")
        #expect(
            try fixture.store.convertSmartSQL(
                "select {departments:name} from {departments} order by {departments:deptCode}")
                == "select TABLE_2_1 from TABLE_2 order by TABLE_2_0")
    }

    @Test func convertsAJoin() throws {
        let fixture = try SmartSQLFixture()
        #expect(
            try fixture.store.convertSmartSQL(
                "select {departments:name}, {employees:firstName} || ' ' || {employees:lastName} "
                    + "from {employees}, {departments} where {departments:deptCode} = {employees:deptCode} "
                    + "order by {departments:name}, {employees:lastName}")
                == "select TABLE_2_1, TABLE_1_0 || ' ' || TABLE_1_1 from TABLE_1, TABLE_2 "
                + "where TABLE_2_0 = TABLE_1_2 order by TABLE_2_1, TABLE_1_1")
    }

    @Test func convertsASelfJoinWithAliases() throws {
        let fixture = try SmartSQLFixture()
        #expect(
            try fixture.store.convertSmartSQL(
                "select mgr.{employees:lastName}, e.{employees:lastName} from {employees} as mgr, {employees} as e "
                    + "where mgr.{employees:employeeId} = e.{employees:managerId}")
                == "select mgr.TABLE_1_1, e.TABLE_1_1 from TABLE_1 as mgr, TABLE_1 as e where mgr.TABLE_1_3 = e.TABLE_1_4"
        )
    }

    @Test func movesAnAliasOntoTheSoupColumnOfJSONExtract() throws {
        let fixture = try SmartSQLFixture()
        #expect(
            try fixture.store.convertSmartSQL(
                "select mgr.{employees:education}, e.{employees:education} from {employees} as mgr, {employees} as e "
                    + "where mgr.{employees:education} = e.{employees:education}")
                == "select json_extract(mgr.soup, '$.education'), json_extract(e.soup, '$.education') "
                + "from TABLE_1 as mgr, TABLE_1 as e "
                + "where json_extract(mgr.soup, '$.education') = json_extract(e.soup, '$.education')")
        #expect(
            try fixture.store.convertSmartSQL(
                "select mgr.{employees:education},e.{employees:education} from {employees} as mgr, {employees} as e "
                    + "where not (mgr.{employees:education}=e.{employees:education})")
                == "select json_extract(mgr.soup, '$.education'),json_extract(e.soup, '$.education') "
                + "from TABLE_1 as mgr, TABLE_1 as e "
                + "where not (json_extract(mgr.soup, '$.education')=json_extract(e.soup, '$.education'))")
    }

    @Test func convertsSpecialColumns() throws {
        let fixture = try SmartSQLFixture()
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees:_soupEntryId}, {employees:_soupCreatedDate}, {employees:_soupLastModifiedDate}, "
                    + "{employees:_soup} from {employees}")
                == "select TABLE_1.id, TABLE_1.created, TABLE_1.lastModified, TABLE_1.soup from TABLE_1")
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees:_soupEntryId}, {departments:_soupEntryId} from {employees}, {departments}")
                == "select TABLE_1.id, TABLE_2.id from TABLE_1, TABLE_2")
        #expect(
            try fixture.store.convertSmartSQL(
                "select mgr.{employees:_soupEntryId}, e.{employees:_soupEntryId} from {employees} as mgr, {employees} as e"
            )
                == "select mgr.id, e.id from TABLE_1 as mgr, TABLE_1 as e")
    }

    @Test(arguments: ["insert into {employees}", "update {employees}", "delete from {employees}"])
    func refusesStatementsOtherThanSelect(_ sql: String) throws {
        let fixture = try SmartSQLFixture()
        #expect {
            try fixture.store.convertSmartSQL(sql)
        } throws: { error in
            (error as? SoupError)?.code == .invalidSmartSQL && "\(error)" == "Only SELECT are supported"
        }
        #expect(try fixture.store.convertSmartSQL("select * from {employees}") == "select * from TABLE_1")
    }

    @Test func convertsJSON1AndUnindexedPathsToJSONExtract() throws {
        let fixture = try SmartSQLFixture()
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees:lastName}, {employees:education} from {employees} where {employees:education} = 'MIT'"
            )
                == "select TABLE_1_1, json_extract(soup, '$.education') from TABLE_1 "
                + "where json_extract(soup, '$.education') = 'MIT'")
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees}.{employees:education} from {employees} order by {employees}.{employees:education}")
                == "select json_extract(TABLE_1.soup, '$.education') from TABLE_1 "
                + "order by json_extract(TABLE_1.soup, '$.education')")
        #expect(
            try fixture.store.convertSmartSQL(
                "select e.{employees:education}, {departments:building} from {employees} as e, {departments}")
                == "select json_extract(e.soup, '$.education'), json_extract(soup, '$.building') from TABLE_1 as e, TABLE_2"
        )
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees:education}, {employees:address.zipcode} from {employees} "
                    + "where {employees:address.city} = 'San Francisco'")
                == "select json_extract(soup, '$.education'), json_extract(soup, '$.address.zipcode') from TABLE_1 "
                + "where json_extract(soup, '$.address.city') = 'San Francisco'")
    }

    @Test func leavesBracesInsideQuotedStrings() throws {
        let fixture = try SmartSQLFixture()
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees:education} from {employees} where {employees:education} like "
                    + "'Account(where: {Name: {eq: \"Jason\"}})'")
                == "select json_extract(soup, '$.education') from TABLE_1 where json_extract(soup, '$.education') like "
                + "'Account(where: {Name: {eq: \"Jason\"}})'")
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees:education}, '{a:b}', {employees:firstName} from {employees} "
                    + "where {employees:address} = '{\"city\": \"San Francisco\"}' or {employees:lastName} like 'B%'")
                == "select json_extract(soup, '$.education'), '{a:b}', TABLE_1_0 from TABLE_1 "
                + "where json_extract(soup, '$.address') = '{\"city\": \"San Francisco\"}' or TABLE_1_1 like 'B%'")
        #expect(
            try fixture.store.convertSmartSQL(
                "select {employees:education} from {employees} where {employees:education} like ' { { { } } '")
                == "select json_extract(soup, '$.education') from TABLE_1 "
                + "where json_extract(soup, '$.education') like ' { { { } } '")
    }

    @Test func leavesSQLWithoutReferencesAsItIs() throws {
        let fixture = try SmartSQLFixture()
        let sql =
            "SELECT json_set('{}', '$.data.uiapi.query.Account.edges', ( SELECT json_group_array(json_set('{}', "
            + "'$.node.Id', (json_extract('Account.JSON', '$.data.fields.Id.value')) )) FROM (SELECT "
            + "'Account'.TABLE_1_1 as 'Account.JSON' FROM TABLE_1 as 'Account' WHERE ( json_extract('Account.JSON', "
            + "'$.data.apiName') = 'Account' ) ) ) ) as json"
        #expect(try fixture.store.convertSmartSQL(sql) == sql)
    }

    // MARK: - Queries

    @Test(arguments: [false, true]) func countsEmployees(floating: Bool) throws {
        let fixture = try SmartSQLFixture(floatingSalaries: floating)
        try fixture.loadData()
        try expectRows(try fixture.rows("select count(*) from {employees}", pageSize: 1), "[[7]]")
    }

    @Test(arguments: [false, true]) func sumsBudgets(floating: Bool) throws {
        let fixture = try SmartSQLFixture(floatingSalaries: floating)
        try fixture.loadData()
        try expectRows(
            try fixture.rows("select sum({departments:budget}) from {departments}", pageSize: 1), "[[3000000]]")
    }

    @Test(arguments: [false, true]) func returnsOneRowWithOneNumber(floating: Bool) throws {
        let fixture = try SmartSQLFixture(floatingSalaries: floating)
        try fixture.loadData()
        let rows = try fixture.rows(
            "select {employees:salary} from {employees} where {employees:lastName} = 'Haas'", pageSize: 1)
        try expectRows(rows, floating ? "[[200000.10]]" : "[[200000]]")
    }

    @Test(arguments: [false, true]) func returnsOneRowWithTwoNumbersFromASelfJoin(floating: Bool) throws {
        let fixture = try SmartSQLFixture(floatingSalaries: floating)
        try fixture.loadData()
        let rows = try fixture.rows(
            "select mgr.{employees:salary}, e.{employees:salary} from {employees} as mgr, {employees} as e "
                + "where e.{employees:lastName} = 'Thompson' and mgr.{employees:employeeId} = e.{employees:managerId}",
            pageSize: 1)
        try expectRows(rows, floating ? "[[200000.10,120000.10]]" : "[[200000,120000]]")
    }

    @Test(arguments: [false, true]) func returnsTwoRowsInOrder(floating: Bool) throws {
        let fixture = try SmartSQLFixture(floatingSalaries: floating)
        try fixture.loadData()
        let rows = try fixture.rows(
            "select {employees:salary} from {employees} where {employees:managerId} = '00010' "
                + "order by {employees:firstName}", pageSize: 2)
        try expectRows(rows, floating ? "[[120000.10],[100000.10]]" : "[[120000],[100000]]")
    }

    @Test(arguments: [false, true]) func returnsTheSoupAStringAndANumber(floating: Bool) throws {
        let fixture = try SmartSQLFixture(floatingSalaries: floating)
        try fixture.loadData()
        let christine = try fixture.store.query(.exact("employees", path: "employeeId", value: "00010", pageSize: 1))
        #expect(christine.first?["firstName"] == "Christine")
        let rows = try fixture.rows(
            "select {employees:_soup}, {employees:firstName}, {employees:salary} from {employees} "
                + "where {employees:lastName} = 'Haas'", pageSize: 1)
        #expect(rows.count == 1)
        #expect(rows.first?.array?[0] == christine.first)
        #expect(rows.first?.array?[1] == "Christine")
        #expect(rows.first?.array?[2].number?.doubleValue == (floating ? 200000.1 : 200000))
    }

    @Test(arguments: [false, true]) func pagesOneRowAtATimeAndCounts(floating: Bool) throws {
        let fixture = try SmartSQLFixture(floatingSalaries: floating)
        try fixture.loadData()
        let spec = QuerySpec.smart(
            sql: "select {employees:firstName} from {employees} order by {employees:firstName}", pageSize: 1)
        #expect(try fixture.store.count(spec) == 7)
        let expected = ["Christine", "Eileen", "Eva", "Irving", "John", "Michael", "Sally"]
        for (page, name) in expected.enumerated() {
            #expect(try fixture.store.query(spec, pageIndex: page) == [[.string(name)]])
        }
        #expect(try fixture.store.query(spec, pageIndex: 7) == [])
    }

    @Test(arguments: [false, true]) func returnsSpecialFields(floating: Bool) throws {
        let fixture = try SmartSQLFixture(floatingSalaries: floating)
        try fixture.loadData()
        let christine = try #require(
            try fixture.store.query(.exact("employees", path: "employeeId", value: "00010", pageSize: 1)).first)
        let rows = try fixture.rows(
            "select {employees:_soup}, {employees:_soupEntryId}, {employees:_soupLastModifiedDate}, "
                + "{employees:salary} from {employees} where {employees:lastName} = 'Haas'", pageSize: 1)
        let row = try #require(rows.first?.array)
        #expect(row[0] == christine)
        #expect(row[1] == christine["_soupEntryId"])
        #expect(row[2] == christine["_soupLastModifiedDate"])
    }

    @Test func tellsNullFromEmptyString() throws {
        let fixture = try SmartSQLFixture()
        #expect(try fixture.createEmployee(#"{"employeeId":"001","deptCode":"xyz"}"#)["deptCode"] == "xyz")
        #expect(try fixture.createEmployee(#"{"employeeId":"002","deptCode":null}"#)["deptCode"] == .null)
        #expect(try fixture.createEmployee(#"{"employeeId":"003","deptCode":""}"#)["deptCode"] == "")
        #expect(try fixture.createEmployee(#"{"employeeId":"004"}"#)["deptCode"] == nil)
        let sql = "select {employees:employeeId} from {employees} where {employees:deptCode} "
        let order = " order by {employees:employeeId}"
        try expectRows(try fixture.rows(sql + "is not null" + order, pageSize: 4), #"[["001"],["003"]]"#)
        try expectRows(try fixture.rows(sql + "is null" + order, pageSize: 4), #"[["002"],["004"]]"#)
        try expectRows(try fixture.rows(sql + #"= """# + order, pageSize: 4), #"[["003"]]"#)
        // iOS's test also selects the nulls.
        try expectRows(
            try fixture.rows(
                "select {employees:employeeId},{employees:deptCode},{employees:deptCode} from {employees}" + order,
                pageSize: 4),
            #"[["001","xyz","xyz"],["002",null,null],["003","",""],["004",null,null]]"#)
    }

    @Test func readsJSON1BooleansAsOneAndZero() throws {
        let fixture = try SmartSQLFixture()
        try fixture.loadData()
        #expect(try fixture.createEmployee(#"{"employeeId":"101","isManager":true}"#)["isManager"] == true)
        #expect(try fixture.createEmployee(#"{"employeeId":"102","isManager":false}"#)["isManager"] == false)
        let sql = "select {employees:employeeId} from {employees} where {employees:isManager} = "
        try expectRows(
            try fixture.rows(sql + "1 order by {employees:employeeId}", pageSize: 10),
            #"[["00010"],["00040"],["00050"],["101"]]"#)
        try expectRows(
            try fixture.rows(sql + "0 order by {employees:employeeId}", pageSize: 10),
            #"[["00020"],["00060"],["00070"],["00310"],["102"]]"#)
    }

    @Test(arguments: [
        ("firstName", #"{"employeeId":"101","firstName":"Göktuğ"}"#, #"{"employeeId":"102","firstName":"보배"}"#),
        (
            "education", #"{"employeeId":"101","education":"latince uzmanı"}"#,
            #"{"employeeId":"102","education":"라틴어 전문가"}"#
        ),
        ("country", #"{"employeeId":"101","country":"Türkçe"}"#, #"{"employeeId":"102","country":"한국"}"#),
    ])
    func matchesNonASCIICharactersWithLike(field: String, first: String, second: String) throws {
        let fixture = try SmartSQLFixture()
        try fixture.createEmployee(first)
        try fixture.createEmployee(second)
        let firstCharacter = ["firstName": "ğ", "education": "ı", "country": "ç"][field] ?? ""
        let secondCharacter = ["firstName": "배", "education": "문", "country": "국"][field] ?? ""
        let sql = "select {employees:employeeId} from {employees} where {employees:\(field)} like "
        try expectRows(try fixture.rows(sql + "'%\(firstCharacter)%'", pageSize: 10), #"[["101"]]"#)
        try expectRows(try fixture.rows(sql + "'%\(secondCharacter)%'", pageSize: 10), #"[["102"]]"#)
    }

    /// Four employees with addresses, for the tests on paths without an index.
    private func addressFixture() throws -> SmartSQLFixture {
        let fixture = try SmartSQLFixture()
        for (id, city, zip) in [
            ("101", "San Francisco", 94105), ("102", "New York City", 10004), ("103", "San Francisco", 94106),
            ("104", "New York City", 10006),
        ] {
            try fixture.createEmployee(#"{"employeeId":"\#(id)","address":{"city":"\#(city)", "zipcode":\#(zip)}}"#)
        }
        return fixture
    }

    @Test func filtersByAPathWithoutAnIndex() throws {
        let fixture = try addressFixture()
        try expectRows(
            try fixture.rows(
                "select {employees:employeeId} from {employees} where {employees:address.city} = 'San Francisco' "
                    + "order by {employees:employeeId}", pageSize: 10),
            #"[["101"],["103"]]"#)
        try expectRows(
            try fixture.rows(
                "select {employees:employeeId} from {employees} where {employees:address.zipcode} = 10006",
                pageSize: 10),
            #"[["104"]]"#)
    }

    @Test func returnsAPathWithoutAnIndex() throws {
        let fixture = try addressFixture()
        try expectRows(
            try fixture.rows(
                "select {employees:employeeId}, {employees:address.zipcode} from {employees} "
                    + "where {employees:address.city} = 'San Francisco' order by {employees:employeeId}",
                pageSize: 10),
            #"[["101", 94105],["103", 94106]]"#)
    }

    @Test func bindsArguments() throws {
        let fixture = try addressFixture()
        let spec = QuerySpec.smart(
            sql: "select {employees:employeeId}, {employees:address.zipcode} from {employees} "
                + "where {employees:address.city} = ? order by {employees:employeeId}", pageSize: 10)
        try expectRows(try fixture.store.query(spec, args: ["San Francisco"]), #"[["101", 94105],["103", 94106]]"#)
        try expectRows(try fixture.store.query(spec, args: ["New York City"]), #"[["102", 10004],["104", 10006]]"#)
    }

    @Test func refusesArgumentsForOtherQueryKinds() throws {
        let fixture = try SmartSQLFixture()
        #expect {
            try fixture.store.query(.all("employees", orderPath: "employeeId", pageSize: 10), args: ["San Francisco"])
        } throws: { error in
            (error as? SoupError)?.code == .invalidQuery && "\(error)" == "args can only be provided for smart queries"
        }
    }
}
