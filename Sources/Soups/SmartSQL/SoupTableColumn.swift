/// The columns of a soup's virtual table, in SmartStore's order: `id`, `soup`, `created`,
/// `lastModified`, then one column per index that has one (every type but `json1`).
enum SoupTableColumn: Hashable, Sendable {
    /// `id`: the record's `_soupEntryId`, also the table's rowid.
    case entryId
    /// `soup`: the record's JSON text.
    case soup
    /// `created`: the record's `_soupCreatedDate`.
    case created
    /// `lastModified`: the record's `_soupLastModifiedDate`.
    case lastModified
    /// `TABLE_<n>_<k>`: the value of an index, typed as the index.
    case index(SmartSoup.Index)

    /// The columns of `soup`'s table, in column-number order.
    static func columns(of soup: SmartSoup) -> [SoupTableColumn] {
        [.entryId, .soup, .created, .lastModified] + soup.columnIndexes.map(SoupTableColumn.index)
    }

    /// The `CREATE TABLE` statement SQLite reads the table's columns from.
    static func schema(of soup: SmartSoup) -> String {
        let indexColumns = soup.columnIndexes.map { index -> String in
            ", \(soup.columnName(index)) \(index.type == .integer ? "INTEGER" : index.type == .floating ? "REAL" : "TEXT")"
        }
        return "CREATE TABLE x(id INTEGER, soup TEXT, created INTEGER, lastModified INTEGER\(indexColumns.joined()))"
    }

    /// How SQLite compares values with this column.
    var affinity: Affinity {
        switch self {
        case .entryId, .created, .lastModified: return .integer
        case .soup: return .text
        case .index(let index):
            switch index.type {
            case .integer: return .integer
            case .floating: return .real
            case .string, .fullText, .hashed, .json1: return .text
            }
        }
    }

    /// SQLite's column affinities, as far as Smart SQL's columns have them.
    enum Affinity: Hashable, Sendable {
        case integer, real, text
    }
}
