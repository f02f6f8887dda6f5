/// How a soup's virtual table produces its rows for one shape of query: the plan `xBestIndex`
/// chooses and `xFilter` runs.
///
/// A plan reads either the records in `_soupEntryId` order (all, a range of ids, or some ids)
/// or one index (one value, a list of values, a range, NULLs, or the whole index in order). It
/// hands the index walk SQLite's constraints on that one column: equality, `IS`, `IN`, the
/// range operators, `IS NULL`, `IS NOT NULL`; and consumes the `ORDER BY` when the walk already
/// gives that order. SQLite checks every constraint again on the rows (no constraint is
/// omitted), so a walk only has to return every row that can match: where an operand's type
/// leaves SQLite's comparison open (a number compared with a text column, say), the walk
/// widens instead of guessing.
struct SoupTablePlan: Hashable, Sendable {
    /// What the plan reads.
    enum Access: Hashable, Sendable {
        case records
        case index(SmartSoup.Index)
    }

    /// What one `xFilter` argument is.
    enum Argument: Hashable, Sendable {
        /// `=`, or `IS` when `matchesNull` (which a NULL operand matches).
        case equal(matchesNull: Bool)
        /// All the values of an `IN` list at once.
        case valueList
        case lower(isInclusive: Bool)
        case upper(isInclusive: Bool)
    }

    /// A test on NULL that the walk answers without an argument.
    enum NullTest: Hashable, Sendable {
        case isNull, isNotNull
    }

    var access: Access
    /// The `xFilter` arguments in order, each with the constraint (its position in
    /// `xBestIndex`'s list) that gives it.
    var arguments: [(constraint: Int, argument: Argument)]
    var nullTest: NullTest?
    var isDescending: Bool
    /// Whether the rows come in the `ORDER BY`'s order, so SQLite needs no sort.
    var consumesOrder: Bool
    var estimatedRows: Double
    var estimatedCost: Double
    /// Whether the query reads the record (`soup`, `created`, `lastModified`): a records walk
    /// that does not reads keys alone and opens no value. A hint: a row still opens its record
    /// if SQLite asks for one of those columns after all.
    var readsRecord = true
    /// The indexes whose columns the query reads, by index number, or `nil` for all: a row
    /// decodes these at once from its key list. A hint, like ``readsRecord``.
    var readIndexes: Set<UInt16>?

    static func == (lhs: SoupTablePlan, rhs: SoupTablePlan) -> Bool {
        lhs.access == rhs.access && lhs.arguments.map(\.constraint) == rhs.arguments.map(\.constraint)
            && lhs.arguments.map(\.argument) == rhs.arguments.map(\.argument) && lhs.nullTest == rhs.nullTest
            && lhs.isDescending == rhs.isDescending && lhs.consumesOrder == rhs.consumesOrder
            && lhs.readsRecord == rhs.readsRecord && lhs.readIndexes == rhs.readIndexes
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(access)
        hasher.combine(arguments.map(\.argument))
        hasher.combine(isDescending)
        hasher.combine(readsRecord)
    }
}

// MARK: - Choosing a plan

extension SoupTablePlan {
    /// A constraint as `xBestIndex` offers it.
    struct Constraint: Hashable, Sendable {
        /// The column number, or -1 for the rowid.
        var column: Int
        var op: Operator
        var isUsable: Bool
        /// Whether the comparison uses the BINARY collation, the only order the indexes keep.
        var isBinary: Bool
        /// Whether SQLite can hand over the whole `IN` list at once (`sqlite3_vtab_in`).
        var isValueList: Bool
    }

    /// The operators a walk can answer; SQLite's others are left to SQLite.
    enum Operator: Hashable, Sendable {
        case equal, `is`, greater, greaterOrEqual, less, lessOrEqual, isNull, isNotNull
    }

    /// One `ORDER BY` term.
    struct OrderTerm: Hashable, Sendable {
        var column: Int
        var isDescending: Bool
    }

    /// The cheapest plan for the constraints and order SQLite offers.
    ///
    /// - Parameter usedColumns: the columns the query reads, as SQLite's `colUsed` gives them
    ///   (bit `n` for column `n`, bit 63 for every column past 62): a walk that needs nothing but
    ///   its own index's values never reads a record.
    static func best(
        columns: [SoupTableColumn], constraints: [Constraint], orderBy: [OrderTerm], recordCount: Int,
        usedColumns: UInt64 = .max
    ) -> SoupTablePlan {
        let count = Double(max(recordCount, 1))
        let reads = ColumnReads(columns: columns, used: usedColumns)
        var candidates = [candidate(.records, column: 0, constraints, orderBy, count, reads)].compactMap { $0 }
        for (number, column) in columns.enumerated() {
            guard case .index(let index) = column else { continue }
            if let plan = candidate(.index(index), column: number, constraints, orderBy, count, reads) {
                candidates.append(plan)
            }
        }
        // The records scan is always a candidate, so there is a minimum.
        var plan =
            candidates.min { lhs, rhs in
                lhs.estimatedCost != rhs.estimatedCost
                    ? lhs.estimatedCost < rhs.estimatedCost : lhs.consumesOrder && !rhs.consumesOrder
            }
            ?? SoupTablePlan(
                access: .records, arguments: [], nullTest: nil, isDescending: false, consumesOrder: false,
                estimatedRows: count, estimatedCost: count)
        plan.readsRecord = reads.needsRecord
        plan.readIndexes =
            reads.readsEveryColumn
            ? nil
            : Set(
                reads.indexColumns.compactMap { number in
                    if case .index(let index) = columns[number] { return index.number }
                    return nil
                })
        return plan
    }

    /// The plan reading `access`, whose column is `column`, or `nil` when it would be no better
    /// than a scan.
    private static func candidate(
        _ access: Access, column: Int, _ constraints: [Constraint], _ orderBy: [OrderTerm], _ count: Double,
        _ reads: ColumnReads
    ) -> SoupTablePlan? {
        let isRecords = access == .records
        let isHashed = if case .index(let index) = access { index.type == .hashed } else { false }
        let usable = constraints.enumerated().filter { _, constraint in
            constraint.isUsable && constraint.isBinary
                && (constraint.column == column || (isRecords && constraint.column == -1))
        }
        var plan = SoupTablePlan(
            access: access, arguments: [], nullTest: nil, isDescending: false, consumesOrder: false,
            estimatedRows: count, estimatedCost: count)
        let equalityRows = isRecords ? 1 : 10 + count / 1000
        if let equal = usable.first(where: { [.equal, .is].contains($0.element.op) && !$0.element.isValueList }) {
            plan.arguments = [(equal.offset, .equal(matchesNull: equal.element.op == .is))]
            plan.estimatedRows = equalityRows
        } else if let list = usable.first(where: { $0.element.op == .equal && $0.element.isValueList }) {
            plan.arguments = [(list.offset, .valueList)]
            plan.estimatedRows = 3 * equalityRows
        } else if !isRecords, usable.contains(where: { $0.element.op == .isNull }) {
            plan.nullTest = .isNull
            plan.estimatedRows = count / 10
        } else if !isHashed, let range = rangeArguments(usable.map { ($0.offset, $0.element.op) }) {
            plan.arguments = range
            plan.estimatedRows = range.count == 2 ? count / 9 : count / 3
        } else if !isRecords, usable.contains(where: { $0.element.op == .isNotNull }) {
            plan.nullTest = .isNotNull
            plan.estimatedRows = count / 2
        }
        if case .walk(let isDescending) = orderFit(orderBy, column: column, plan: plan, isHashed: isHashed) {
            plan.isDescending = isDescending
            plan.consumesOrder = true
        }
        // Plus the descent to the first key: about log₂ n.
        let descent = Double(Int.bitWidth - Int(count).leadingZeroBitCount)
        plan.estimatedCost = plan.estimatedRows * reads.costPerRow(isRecords ? nil : column) + descent
        return plan
    }

    /// What a plan must read per row besides its own keys, from the columns a query uses.
    private struct ColumnReads {
        /// Whether the query reads `soup`, `created` or `lastModified`: the record itself.
        var needsRecord: Bool
        /// The index columns the query reads, by column number.
        var indexColumns: Set<Int>
        /// Whether SQLite may read every column (the tables read without their indexes).
        var readsEveryColumn: Bool

        init(columns: [SoupTableColumn], used: UInt64) {
            let isUsed = { (number: Int) in used & (1 << UInt64(min(number, 63))) != 0 }
            readsEveryColumn = used == .max
            needsRecord = (1...3).contains(where: isUsed)
            indexColumns = Set(
                columns.indices.filter { number in
                    if case .index = columns[number] { return isUsed(number) }
                    return false
                })
        }

        /// The relative cost of one row read through `column`'s index, or by the records scan
        /// when `nil`: a record costs 1 (its JSON is copied, and opened when sealed), the values
        /// of other indexes 1 more (the record's key list), an index key alone 0.3.
        func costPerRow(_ column: Int?) -> Double {
            let otherIndexes = indexColumns.subtracting(column.map { [$0] } ?? []).isEmpty ? 0.0 : 1.0
            guard column != nil else { return 1 + otherIndexes }
            return 0.3 + (needsRecord ? 1 : 0) + otherIndexes
        }
    }

    /// A lower and an upper bound among `constraints`, if any.
    private static func rangeArguments(_ constraints: [(Int, Operator)]) -> [(constraint: Int, argument: Argument)]? {
        var arguments: [(constraint: Int, argument: Argument)] = []
        if let lower = constraints.first(where: { [.greater, .greaterOrEqual].contains($0.1) }) {
            arguments.append((lower.0, .lower(isInclusive: lower.1 == .greaterOrEqual)))
        }
        if let upper = constraints.first(where: { [.less, .lessOrEqual].contains($0.1) }) {
            arguments.append((upper.0, .upper(isInclusive: upper.1 == .lessOrEqual)))
        }
        return arguments.isEmpty ? nil : arguments
    }

    /// How a plan's walk meets an `ORDER BY`.
    private enum OrderFit {
        /// The query has no `ORDER BY`.
        case none
        /// Walking in this direction gives the order.
        case walk(isDescending: Bool)
        /// No direction gives it: SQLite sorts.
        case unmet
    }

    /// How the plan's walk meets `orderBy`.
    ///
    /// A walk yields its column's order and, within one value, `_soupEntryId` order in the same
    /// direction; an equality walk holds one value, so only the entry ids' order is left.
    private static func orderFit(_ orderBy: [OrderTerm], column: Int, plan: SoupTablePlan, isHashed: Bool) -> OrderFit {
        guard let first = orderBy.first else { return .none }
        let isEntryId = { (term: OrderTerm) in term.column == 0 || term.column == -1 }
        var terms = orderBy[...]
        if plan.access == .records {
            let fits = terms.allSatisfy { isEntryId($0) && $0.isDescending == first.isDescending }
            return fits ? .walk(isDescending: first.isDescending) : .unmet
        }
        let isSingleValue =
            if case .equal = plan.arguments.first?.argument { true } else { plan.nullTest == .isNull }
        if isSingleValue {
            terms = terms.drop { $0.column == column }
        } else {
            guard !isHashed, first.column == column else { return .unmet }
            terms = terms.dropFirst()
        }
        let direction = terms.first?.isDescending ?? first.isDescending
        guard terms.allSatisfy({ isEntryId($0) && $0.isDescending == direction }) else { return .unmet }
        // Within one value the walk gives entry ids in its own direction.
        if !isSingleValue, terms.first != nil, direction != first.isDescending { return .unmet }
        return .walk(isDescending: direction)
    }

    /// What `EXPLAIN QUERY PLAN` shows for the plan (SQLite prints it as the index string).
    func description(soup: SmartSoup) -> String {
        var text: String
        let column: String
        switch access {
        case .records:
            text = "records by _soupEntryId"
            column = "id"
        case .index(let index):
            text = "index on \(index.path) (\(soup.columnName(index)))"
            column = soup.columnName(index)
        }
        for (_, argument) in arguments {
            switch argument {
            case .equal(let matchesNull): text += " \(column) \(matchesNull ? "IS" : "=") ?"
            case .valueList: text += " \(column) IN (…)"
            case .lower(let isInclusive): text += " \(column) \(isInclusive ? ">=" : ">") ?"
            case .upper(let isInclusive): text += " \(column) \(isInclusive ? "<=" : "<") ?"
            }
        }
        switch nullTest {
        case .isNull: text += " \(column) IS NULL"
        case .isNotNull: text += " \(column) IS NOT NULL"
        case nil: break
        }
        if consumesOrder { text += isDescending ? ", ordered descending" : ", ordered" }
        return text
    }
}
