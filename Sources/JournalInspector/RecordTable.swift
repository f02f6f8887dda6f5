import LosslessJSON
import Soups

/// Records as the inspector's tables show them: the id first, then the soup's indexed paths,
/// then the other fields by name; every value as short display text.
///
/// A value longer than ``valueCharactersMax`` is cut there and ends with `…`: the record page
/// shows it whole. The cells are text (a string as it is, anything else as compact JSON) or
/// `null` when the record has no such field, so a page's size is bounded by its row count.
struct RecordTable: Sendable {
    /// The longest value a cell shows, in characters, before it is cut.
    static let valueCharactersMax = 120
    /// The most columns a table has; the record page shows every field.
    static let columnsMax = 40
    /// The fields that come first, in this order, when records have them.
    static let leadingColumns = [SoupStore.entryIdField, "Id"]
    /// Fields no table shows: Salesforce's `{type, url}` is the same on every row.
    static let hiddenColumns: Set<String> = ["attributes"]

    /// The column names, in order: ids, indexed paths, then the rest by name.
    var columns: [String]
    /// One array of cells per record, aligned with ``columns``.
    var rows: [[JSONValue]]
    /// How many fields the records have beyond ``columnsMax``.
    var omittedColumnCount: Int

    /// The table of `records` of a soup indexed on `indexPaths`.
    init(records: [JSONValue], indexPaths: [String]) {
        var present: Set<String> = []
        for record in records {
            for key in (record.object ?? [:]).keys where !Self.hiddenColumns.contains(key) {
                present.insert(key)
            }
        }
        var columns: [String] = []
        for column in Self.leadingColumns where present.contains(column) { columns.append(column) }
        for path in indexPaths where !columns.contains(path) { columns.append(path) }
        let listed = Set(columns)
        columns += present.subtracting(listed).sorted()
        omittedColumnCount = max(0, columns.count - Self.columnsMax)
        columns = Array(columns.prefix(Self.columnsMax))
        self.columns = columns
        rows = records.map { record in columns.map { Self.cell(record, $0) } }
    }

    /// The table as the endpoints send it: `columns`, `rows` and `omittedColumns`.
    var json: [String: JSONValue] {
        [
            "columns": .array(columns.map { .string($0) }), "rows": .array(rows.map { .array($0) }),
            "omittedColumns": .number(JSONNumber(Int64(omittedColumnCount))),
        ]
    }

    /// The display text of `column` in `record`: a field, or a dotted index path into it.
    static func cell(_ record: JSONValue, _ column: String) -> JSONValue {
        guard let value = record[column] ?? (column.contains(".") ? SoupPath.project(record, column) : nil) else {
            return .null
        }
        let text: String
        switch value {
        case .null: return .null
        case .string(let string): text = string
        default: text = String(decoding: value.serialized(), as: UTF8.self)
        }
        return .string(clipped(text))
    }

    /// `text` cut at ``valueCharactersMax`` characters, ending with `…` when cut.
    static func clipped(_ text: String) -> String {
        // The UTF-8 count bounds the character count: most values are not near the bound.
        guard text.utf8.count > valueCharactersMax, text.count > valueCharactersMax else { return text }
        return String(text.prefix(valueCharactersMax)) + "…"
    }
}
