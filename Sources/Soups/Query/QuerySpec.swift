public import LosslessJSON

/// A query over one soup, with SmartStore's kinds: all, exact, range, like and match; or a
/// smart query (SQL) over any soups.
///
/// ```swift
/// let spec = QuerySpec.range("accounts", path: "Amount", from: 100, to: nil, orderPath: "Amount", pageSize: 50)
/// let firstPage = try store.query(spec, pageIndex: 0)
/// ```
///
/// Without ``orderPath`` records come in `_soupEntryId` order. With it, they come in the
/// order of the index on that path (nulls first when ascending, last when descending, ties
/// by `_soupEntryId`), or, for a path with no index, in SQLite's `json_extract` order.
public struct QuerySpec: Hashable, Sendable {
    /// The soup queried.
    public var soupName: String
    /// Which records match.
    public var filter: Filter
    /// The dotted path results are ordered by, or `nil` for `_soupEntryId` order.
    public var orderPath: String?
    /// The direction of the order.
    public var order: Order
    /// How many records make a page; 1 through ``pageSizeMax``.
    public var pageSize: Int
    /// When set, each result is an array of the values at these paths (JSON null when
    /// absent) instead of the whole record.
    public var selectPaths: [String]?

    /// The largest page size accepted.
    public static let pageSizeMax = 100_000

    /// Which records a query matches.
    public enum Filter: Hashable, Sendable {
        /// Every record.
        case all
        /// Records whose indexed value at `path` equals `value`.
        case exact(path: String, value: JSONValue)
        /// Records whose indexed value at `path` lies between the bounds, inclusive; a `nil`
        /// bound leaves that end open. Records without a value match only when both are `nil`.
        case range(path: String, lower: JSONValue?, upper: JSONValue?)
        /// Records whose indexed value at `path` matches a SQL `LIKE` pattern (`%`, `_`,
        /// ASCII case-insensitive).
        case like(path: String, pattern: String)
        /// Records whose `full_text` index at `path` (every `full_text` index when `nil`)
        /// matches a full-text expression in SmartStore's syntax: terms, `prefix*`,
        /// `"phrases"`, `{soup:path}:term` column filters, `AND`, `OR`, `NOT`, parentheses.
        case match(path: String?, expression: String)
        /// A smart query: SmartStore's SQL, in which `{soup}` names a soup's table and
        /// `{soup:path}` a field, over any soups; `args` are bound to its `?` parameters. Its
        /// results are rows, each a JSON array of the selected values. The spec's ``soupName``,
        /// ``orderPath``, ``order`` and ``selectPaths`` do not apply: the SQL says it all.
        case smart(sql: String, args: [JSONValue])
    }

    /// The direction of an order.
    public enum Order: String, Hashable, Sendable {
        /// Smallest first, nulls first.
        case ascending
        /// Largest first, nulls last.
        case descending
    }

    /// Creates a query spec.
    public init(
        soupName: String, filter: Filter, orderPath: String? = nil, order: Order = .ascending, pageSize: Int = 10,
        selectPaths: [String]? = nil
    ) {
        self.soupName = soupName
        self.filter = filter
        self.orderPath = orderPath
        self.order = order
        self.pageSize = pageSize
        self.selectPaths = selectPaths
    }

    /// A query for every record of `soup`.
    public static func all(
        _ soup: String, orderPath: String? = nil, order: Order = .ascending, pageSize: Int = 10
    ) -> QuerySpec {
        QuerySpec(soupName: soup, filter: .all, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    /// A query for the records whose value at `path` equals `value`.
    public static func exact(
        _ soup: String, path: String, value: JSONValue, orderPath: String? = nil, order: Order = .ascending,
        pageSize: Int = 10
    ) -> QuerySpec {
        QuerySpec(
            soupName: soup, filter: .exact(path: path, value: value), orderPath: orderPath, order: order,
            pageSize: pageSize)
    }

    /// A query for the records whose value at `path` lies between `lower` and `upper`.
    public static func range(
        _ soup: String, path: String, from lower: JSONValue?, to upper: JSONValue?, orderPath: String? = nil,
        order: Order = .ascending, pageSize: Int = 10
    ) -> QuerySpec {
        QuerySpec(
            soupName: soup, filter: .range(path: path, lower: lower, upper: upper), orderPath: orderPath,
            order: order, pageSize: pageSize)
    }

    /// A query for the records whose value at `path` matches the `LIKE` pattern.
    public static func like(
        _ soup: String, path: String, pattern: String, orderPath: String? = nil, order: Order = .ascending,
        pageSize: Int = 10
    ) -> QuerySpec {
        QuerySpec(
            soupName: soup, filter: .like(path: path, pattern: pattern), orderPath: orderPath, order: order,
            pageSize: pageSize)
    }

    /// A smart query, SmartStore's `buildSmartQuerySpec`: SQLite's `SELECT` over soups named
    /// `{soup}` and fields named `{soup:path}`.
    ///
    /// ```swift
    /// let spec = QuerySpec.smart(
    ///     sql: "select {employees:deptCode}, count(*) from {employees} group by {employees:deptCode}",
    ///     pageSize: 100)
    /// let rows = try store.query(spec)  // [["A00", 3], ["B00", 4]]
    /// ```
    ///
    /// - Parameters:
    ///   - sql: the smart query; only `SELECT` (and `WITH … SELECT`) statements run.
    ///   - args: the values of its `?` parameters, in order: strings, numbers, booleans (as 1
    ///     and 0), nulls; arrays and objects as their JSON text.
    ///   - pageSize: how many rows make a page.
    public static func smart(sql: String, args: [JSONValue] = [], pageSize: Int = 10) -> QuerySpec {
        QuerySpec(soupName: "", filter: .smart(sql: sql, args: args), pageSize: pageSize)
    }

    /// A full-text query over the `full_text` index at `path`, or all of them when `nil`.
    public static func match(
        _ soup: String, path: String? = nil, expression: String, orderPath: String? = nil,
        order: Order = .ascending, pageSize: Int = 10
    ) -> QuerySpec {
        QuerySpec(
            soupName: soup, filter: .match(path: path, expression: expression), orderPath: orderPath, order: order,
            pageSize: pageSize)
    }
}
