import CSQLite

/// The Swift side of one soup's virtual table on one connection: its columns, and the plans
/// `xBestIndex` chose, which `xFilter` finds again by number.
///
/// Plans outlive executions, since the connection keeps its prepared statements (which name
/// plans by number) from one execution to the next; a plan depends only on the table's
/// columns, which the connection's catalog fixes. Equal plans share one number, so their count
/// stays that of the query shapes seen.
///
/// The tables are eponymous (`TABLE_<n>` exists as soon as the module of that name is
/// registered; `CREATE VIRTUAL TABLE` is refused), read-only, and live as long as their
/// connection, which lives inside one read transaction: see ``SmartSQLConnection``.
final class SoupVirtualTable {
    let context: SmartQueryContext
    let soup: SmartSoup
    let columns: [SoupTableColumn]
    /// The index number of each column that shows an index, by column number: what a row's
    /// column is looked up by, with no copy of the column's description.
    private let indexNumbers: [UInt16?]
    private(set) var plans: [SoupTablePlan] = []
    /// The number of each plan in ``plans``.
    private var planNumbers: [SoupTablePlan: Int32] = [:]
    private var recordCount: Int?

    /// The most plans one table keeps: SQLite asks `xBestIndex` a few times per join order, and
    /// equal plans share a number, so this is never reached by a query a person writes.
    static let planCountMax = 10_000

    init(context: SmartQueryContext, soup: SmartSoup) {
        self.context = context
        self.soup = soup
        columns = SoupTableColumn.columns(of: soup)
        indexNumbers = columns.map { column in
            if case .index(let index) = column { index.number } else { nil }
        }
    }

    /// Forgets what the last execution learned of the soup's size, which the next execution's
    /// snapshot may change.
    func reset() {
        recordCount = nil
    }

    /// Forgets every plan: only once no prepared statement names them any more.
    func forgetPlans() {
        plans.removeAll(keepingCapacity: true)
        planNumbers.removeAll(keepingCapacity: true)
    }

    /// Chooses a plan for the constraints and order in `info`, and tells SQLite which operands
    /// `xFilter` needs.
    func chooseBestPlan(_ info: UnsafeMutablePointer<sqlite3_index_info>) throws {
        guard plans.count < Self.planCountMax else {
            throw SoupError(.invalidSmartSQL, "the smart query joins \(soup.name) too many ways to plan")
        }
        let constraints = context.usesIndexes ? Self.constraints(info) : []
        let orderBy = context.usesIndexes ? Self.orderTerms(info) : []
        let count = try recordCount ?? context.currentReader().estimatedRecordCount(of: soup)
        recordCount = count
        context.notePlanned(soup, recordCount: count)
        let plan = SoupTablePlan.best(
            columns: columns, constraints: constraints, orderBy: orderBy, recordCount: count,
            usedColumns: context.usesIndexes ? info.pointee.colUsed : .max)
        for (position, (constraint, argument)) in plan.arguments.enumerated() {
            info.pointee.aConstraintUsage[constraint].argvIndex = Int32(position + 1)
            info.pointee.aConstraintUsage[constraint].omit = 0
            if argument == .valueList { _ = sqlite3_vtab_in(info, Int32(constraint), 1) }
        }
        info.pointee.idxNum = number(of: plan)
        info.pointee.idxStr = SmartSQLConnection.sqliteString(plan.description(soup: soup))
        info.pointee.needToFreeIdxStr = 1
        info.pointee.orderByConsumed = plan.consumesOrder ? 1 : 0
        info.pointee.estimatedCost = plan.estimatedCost
        info.pointee.estimatedRows = sqlite3_int64(plan.estimatedRows.rounded(.up))
    }

    /// The number of `plan`, kept under a new number unless an equal plan has one.
    private func number(of plan: SoupTablePlan) -> Int32 {
        if let number = planNumbers[plan] { return number }
        let number = Int32(plans.count)
        plans.append(plan)
        planNumbers[plan] = number
        return number
    }

    private static func constraints(_ info: UnsafeMutablePointer<sqlite3_index_info>) -> [SoupTablePlan.Constraint] {
        (0..<Int(info.pointee.nConstraint)).map { position in
            let constraint = info.pointee.aConstraint[position]
            let collation = sqlite3_vtab_collation(info, Int32(position)).map { String(cString: $0) } ?? "BINARY"
            return SoupTablePlan.Constraint(
                column: Int(constraint.iColumn), op: op(constraint.op) ?? .isNotNull,
                isUsable: constraint.usable != 0 && op(constraint.op) != nil,
                isBinary: collation.uppercased() == "BINARY",
                isValueList: sqlite3_vtab_in(info, Int32(position), -1) != 0)
        }
    }

    private static func orderTerms(_ info: UnsafeMutablePointer<sqlite3_index_info>) -> [SoupTablePlan.OrderTerm] {
        (0..<Int(info.pointee.nOrderBy)).map { position in
            let term = info.pointee.aOrderBy[position]
            return SoupTablePlan.OrderTerm(column: Int(term.iColumn), isDescending: term.desc != 0)
        }
    }

    /// The walk's operator for SQLite's, or `nil` for those left to SQLite.
    private static func op(_ op: UInt8) -> SoupTablePlan.Operator? {
        switch Int32(op) {
        case SQLITE_INDEX_CONSTRAINT_EQ: return .equal
        case SQLITE_INDEX_CONSTRAINT_IS: return .is
        case SQLITE_INDEX_CONSTRAINT_GT: return .greater
        case SQLITE_INDEX_CONSTRAINT_GE: return .greaterOrEqual
        case SQLITE_INDEX_CONSTRAINT_LT: return .less
        case SQLITE_INDEX_CONSTRAINT_LE: return .lessOrEqual
        case SQLITE_INDEX_CONSTRAINT_ISNULL: return .isNull
        case SQLITE_INDEX_CONSTRAINT_ISNOTNULL: return .isNotNull
        default: return nil
        }
    }

    /// Starts `cursor` on plan number `planNumber` with `xFilter`'s arguments.
    func filter(
        _ cursor: SoupTableCursor, planNumber: Int32, arguments: UnsafeMutablePointer<OpaquePointer?>?, count: Int32
    ) throws {
        guard plans.indices.contains(Int(planNumber)), Int(count) == plans[Int(planNumber)].arguments.count else {
            throw SoupError(.storage, "SQLite asked soup \(soup.name) for a plan it never chose")
        }
        let plan = plans[Int(planNumber)]
        var values: [SoupTableCursor.Argument] = []
        for (position, (_, argument)) in plan.arguments.enumerated() {
            let value = arguments?[position]
            values.append(argument == .valueList ? .list(try Self.valueList(value)) : .single(Self.value(value)))
        }
        try cursor.start(plan, arguments: values)
    }

    /// The values of an `IN` list handed over all at once.
    private static func valueList(_ list: OpaquePointer?) throws -> [SmartSQLValue?] {
        var values: [SmartSQLValue?] = []
        var element: OpaquePointer?
        var status = sqlite3_vtab_in_first(list, &element)
        while status == SQLITE_OK, let current = element {
            values.append(value(current))
            status = sqlite3_vtab_in_next(list, &element)
        }
        guard status == SQLITE_OK || status == SQLITE_DONE else {
            throw SoupError(.storage, "SQLite could not list the values of an IN operator (code \(status))")
        }
        return values
    }

    /// A SQLite value as a ``SmartSQLValue``; `nil` for a BLOB.
    static func value(_ value: OpaquePointer?) -> SmartSQLValue? {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            // The text first, then its length: the order SQLite documents.
            guard let text = sqlite3_value_text(value) else { return .text("") }
            let count = Int(sqlite3_value_bytes(value))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_NULL:
            return .null
        default:
            return nil
        }
    }

    /// Gives SQLite the current row's value in column `number`.
    func column(_ cursor: SoupTableCursor, number: Int32, into context: OpaquePointer?) throws {
        guard columns.indices.contains(Int(number)) else {
            sqlite3_result_null(context)
            return
        }
        // The walked index's column comes from the batch's bytes, as the key gave it: a group by
        // reads one per row, so this path builds no `String` and copies no column description.
        if let index = indexNumbers[Int(number)], let value = cursor.walkedValue(ofIndex: index) {
            Self.result(value, text: cursor.walkedText, into: context)
            return
        }
        let column = columns[Int(number)]
        if column == .soup {
            guard let json = try cursor.recordJSON() else {
                sqlite3_result_null(context)
                return
            }
            SmartSQLConnection.resultText(json, into: context)
            return
        }
        switch try cursor.value(column) {
        case .null: sqlite3_result_null(context)
        case .integer(let number): sqlite3_result_int64(context, number)
        case .real(let number): sqlite3_result_double(context, number)
        case .text(let text): SmartSQLConnection.resultText(text, into: context)
        }
    }

    /// Gives SQLite `value`, whose text is in `text`; SQLite copies it. Text stays text, integers
    /// integers, reals reals and NULL NULL, as ``SmartSQLValue``'s path gives them.
    private static func result(_ value: SoupKeyValue, text: [UInt8], into context: OpaquePointer?) {
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let number): sqlite3_result_int64(context, number)
        case .real(let number): sqlite3_result_double(context, number)
        case .text(let offset, let count):
            text.withUnsafeBufferPointer { bytes in
                SmartSQLConnection.resultText(
                    UnsafeBufferPointer(rebasing: bytes[offset..<(offset + count)]), into: context)
            }
        }
    }
}
