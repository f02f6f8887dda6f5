import CSQLite
import LosslessJSON
import Soups

// How SmartStore names and fills index columns (docs/import-smartstore.md): a json1 index has no
// column, only an SQL index on `json_extract(soup, '$.<path>')`; the others get a column of
// their type holding the value at the path.
extension SmartStoreFixture {
    static func columnName(_ table: String, _ position: Int, _ spec: IndexSpec) -> String {
        spec.type == .json1 ? "json_extract(soup, '$.\(spec.path)')" : "\(table)_\(position)"
    }

    static func columnType(_ type: IndexType) -> String {
        switch type {
        case .integer: "INTEGER"
        case .floating: "REAL"
        default: "TEXT"
        }
    }

    /// The value at a dotted path, through objects only.
    static func project(_ record: JSONValue, _ path: String) -> JSONValue? {
        var value: JSONValue? = record
        for component in path.split(separator: ".") { value = value?[String(component)] }
        return value
    }

    /// What SmartStore stores in an index column: text as it is, a boolean as Android's
    /// `true`/`false`, numbers as numbers, anything else as its JSON.
    static func columnValue(_ value: JSONValue?, _ type: IndexType) -> JSONValue {
        switch (value, type) {
        case (nil, _), (.null?, _): .null
        case (.number(let number)?, .integer), (.number(let number)?, .floating): .number(number)
        case (_, .integer), (_, .floating): .null
        case (.string(let text)?, _): .string(text)
        case (.bool(let flag)?, _): .string(flag ? "true" : "false")
        case (let other?, _): .string(other.serializedString)
        }
    }

    /// Column `column` of the current row as JSON.
    static func value(_ statement: OpaquePointer, _ column: Int32) -> JSONValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: .number(JSONNumber(sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: .number(JSONNumber(sqlite3_column_double(statement, column)))
        case SQLITE_NULL: .null
        default: .string(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
        }
    }

    /// Runs one statement with `values` bound to its `?`s.
    func run(_ sql: String, _ values: [JSONValue]) throws {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            throw SmartStoreFixtureError(message: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in values.enumerated() {
            let position = Int32(offset + 1)
            switch value {
            case .number(let number):
                if let integer = number.int64Value {
                    sqlite3_bind_int64(statement, position, integer)
                } else {
                    sqlite3_bind_double(statement, position, number.doubleValue)
                }
            case .string(let text): sqlite3_bind_text(statement, position, text, -1, csqlite_transient())
            default: sqlite3_bind_null(statement, position)
            }
        }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw SmartStoreFixtureError(message: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
}
