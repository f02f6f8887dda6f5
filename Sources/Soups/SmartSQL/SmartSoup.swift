/// One soup as Smart SQL sees it: SmartStore's table name and columns for it.
///
/// SmartStore keeps a soup in a table `TABLE_<n>` with the columns `id`, `soup`, `created`,
/// `lastModified` and one column `TABLE_<n>_<k>` per index (none for `json1` indexes, which
/// SmartStore reads with `json_extract`). Smart SQL names them the same way, so converted
/// queries read exactly as SmartStore's do.
struct SmartSoup: Hashable, Sendable {
    /// The soup's name, as `{name}` references it.
    var name: String
    /// The soup's number: its table is `TABLE_<number>`. Never reused by another soup.
    var number: UInt32
    /// The soup's indexes, in the order of its index specs.
    var indexes: [Index]

    /// One index of a soup.
    struct Index: Hashable, Sendable {
        var path: String
        var type: IndexType
        /// The index's number within its soup: its column is `TABLE_<soup>_<number>`. It stays
        /// the same for as long as the soup keeps the (path, type) pair.
        var number: UInt16
    }

    /// SmartStore's table name for the soup.
    var tableName: String {
        "TABLE_\(number)"
    }

    /// SmartStore's column name for `index`.
    func columnName(_ index: Index) -> String {
        "\(tableName)_\(index.number)"
    }

    /// The first index on `path`, as SmartStore's `getColumnNameForPath` picks it.
    func index(on path: String) -> Index? {
        indexes.first { $0.path == path }
    }

    /// The indexes that have a column: every type but `json1`.
    var columnIndexes: [Index] {
        indexes.filter { $0.type != .json1 }
    }
}
