import EventJournal
import LosslessJSON
import Soups
import Testing

/// A store holding SmartStore's Smart SQL test soups, `employees` and `departments`, with the
/// index specs of Mobile SDK's SmartSqlTest (Android), whose salary is an integer index, or of
/// SFSmartSqlTests (iOS), whose salary is a floating index.
struct SmartSQLFixture {
    let soups: SoupFixture
    /// Whether the data is iOS's: floating salaries, and `""` for a missing manager.
    let isFloating: Bool

    var store: SoupStore {
        soups.store
    }

    init(floatingSalaries: Bool = false, encryption: StoreKey? = nil) throws {
        soups = try SoupFixture("smart-sql", encryption: encryption)
        isFloating = floatingSalaries
        try store.registerSoup(
            "employees",
            indexSpecs: [
                IndexSpec(path: "firstName", type: .string), IndexSpec(path: "lastName", type: .string),
                IndexSpec(path: "deptCode", type: .string), IndexSpec(path: "employeeId", type: .string),
                IndexSpec(path: "managerId", type: .string),
                IndexSpec(path: "salary", type: floatingSalaries ? .floating : .integer),
                IndexSpec(path: "education", type: .json1), IndexSpec(path: "isManager", type: .json1),
            ])
        try store.registerSoup(
            "departments",
            indexSpecs: [
                IndexSpec(path: "deptCode", type: .string), IndexSpec(path: "name", type: .string),
                IndexSpec(path: "budget", type: .integer), IndexSpec(path: "building", type: .json1),
            ])
    }

    /// SmartSqlTest's `loadData`: seven employees in two departments.
    func loadData() throws {
        let employees: [(String, String, String, String, String?, Double, Bool)] = [
            ("Christine", "Haas", "A00", "00010", nil, 200000, true),
            ("Michael", "Thompson", "A00", "00020", "00010", 120000, false),
            ("Sally", "Kwan", "A00", "00310", "00010", 100000, false),
            ("John", "Geyer", "B00", "00040", nil, 102000, true),
            ("Irving", "Stern", "B00", "00050", "00040", 100000, true),
            ("Eva", "Pulaski", "B00", "00060", "00050", 80000, false),
            ("Eileen", "Henderson", "B00", "00070", "00050", 70000, false),
        ]
        for (first, last, dept, id, manager, salary, isManager) in employees {
            var employee: [String: JSONValue] = [
                "firstName": .string(first), "lastName": .string(last), "deptCode": .string(dept),
                "employeeId": .string(id), "isManager": .bool(isManager),
                // iOS's salaries carry ten cents; Android's are whole.
                "salary": isFloating ? .number(JSONNumber(salary + 0.1)) : .number(JSONNumber(Int64(salary))),
            ]
            // Android's JSONObject drops a null manager; iOS stores "".
            if let manager {
                employee["managerId"] = .string(manager)
            } else if isFloating {
                employee["managerId"] = ""
            }
            try store.create("employees", .object(employee))
        }
        for (code, name, budget) in [("A00", "Sales", 1_000_000), ("B00", "R&D", 2_000_000)] {
            try store.create(
                "departments",
                ["deptCode": .string(code), "name": .string(name), "budget": .number(JSONNumber(Int64(budget)))])
        }
    }

    /// Creates an employee from JSON text and returns it as stored.
    @discardableResult
    func createEmployee(_ json: String) throws -> JSONValue {
        try store.create("employees", JSONValue(parsing: json))
    }

    /// One page of a smart query's rows.
    func rows(_ sql: String, pageSize: Int = 100, pageIndex: Int = 0, args: [JSONValue] = []) throws -> [JSONValue] {
        try store.query(.smart(sql: sql, args: args, pageSize: pageSize), pageIndex: pageIndex)
    }
}

/// Whether two JSON values are the same, numbers compared by value (`200000.10` is `200000.1`),
/// as SmartStore's tests compare JSON.
func sameJSON(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.number(let left), .number(let right)):
        return left.doubleValue == right.doubleValue
    case (.array(let left), .array(let right)):
        return left.count == right.count && zip(left, right).allSatisfy { sameJSON($0, $1) }
    case (.object(let left), .object(let right)):
        return left.keys.sorted() == right.keys.sorted()
            && left.allSatisfy { key, value in
                right[key].map { sameJSON(value, $0) } ?? false
            }
    default:
        return lhs == rhs
    }
}

/// Expects `rows` to be the JSON `expected`, numbers compared by value.
func expectRows(_ rows: [JSONValue], _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let parsed = try JSONValue(parsing: expected)
    #expect(
        sameJSON(.array(rows), parsed), "got \(JSONValue.array(rows).serializedString)", sourceLocation: sourceLocation)
}
