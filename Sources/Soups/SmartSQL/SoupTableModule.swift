import CSQLite

/// The `sqlite3_module` of the soup tables: SQLite's callbacks, each a C function that finds
/// its Swift object and hands over to it.
///
/// No callback lets an error escape into C: each one keeps the error in the
/// ``SmartQueryContext``, gives SQLite its text, and returns `SQLITE_ERROR`.
enum SoupTableModule {
    /// A module for eponymous-only, read-only tables (no `xCreate`, no `xUpdate`).
    static func make() -> sqlite3_module {
        var module = sqlite3_module()
        module.iVersion = 1
        module.xCreate = nil
        module.xConnect = { database, aux, _, _, table, _ in SoupTableModule.connect(database, aux, table) }
        module.xBestIndex = { table, info in SoupTableModule.bestIndex(table, info) }
        module.xDisconnect = { table in SoupTableModule.disconnect(table) }
        module.xDestroy = { table in SoupTableModule.disconnect(table) }
        module.xOpen = { table, cursor in SoupTableModule.open(table, cursor) }
        module.xClose = { cursor in SoupTableModule.close(cursor) }
        module.xFilter = { cursor, number, _, count, arguments in
            SoupTableModule.filter(cursor, number, count, arguments)
        }
        module.xNext = { cursor in SoupTableModule.next(cursor) }
        module.xEof = { cursor in SoupTableModule.isAtEnd(cursor) }
        module.xColumn = { cursor, context, number in SoupTableModule.column(cursor, context, number) }
        module.xRowid = { cursor, rowid in SoupTableModule.rowid(cursor, rowid) }
        return module
    }

    // MARK: - Tables

    private static func connect(
        _ database: OpaquePointer?, _ aux: UnsafeMutableRawPointer?,
        _ table: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_vtab>?>?
    ) -> Int32 {
        guard let aux, let table else { return SQLITE_MISUSE }
        let swiftTable = Unmanaged<SoupVirtualTable>.fromOpaque(aux).takeUnretainedValue()
        let status = sqlite3_declare_vtab(database, SoupTableColumn.schema(of: swiftTable.soup))
        guard status == SQLITE_OK else { return status }
        let allocated = UnsafeMutablePointer<csqlite_soup_table>.allocate(capacity: 1)
        allocated.initialize(to: csqlite_soup_table())
        // The module's registration keeps the Swift table alive for as long as the connection.
        allocated.pointee.table = aux
        table.pointee = UnsafeMutableRawPointer(allocated).assumingMemoryBound(to: sqlite3_vtab.self)
        return SQLITE_OK
    }

    private static func disconnect(_ table: UnsafeMutablePointer<sqlite3_vtab>?) -> Int32 {
        guard let table else { return SQLITE_OK }
        let allocated = UnsafeMutableRawPointer(table).assumingMemoryBound(to: csqlite_soup_table.self)
        if let message = allocated.pointee.base.zErrMsg { sqlite3_free(message) }
        allocated.deinitialize(count: 1)
        allocated.deallocate()
        return SQLITE_OK
    }

    private static func swiftTable(_ table: UnsafeMutablePointer<sqlite3_vtab>?) -> SoupVirtualTable? {
        guard let table else { return nil }
        let allocated = UnsafeMutableRawPointer(table).assumingMemoryBound(to: csqlite_soup_table.self)
        return allocated.pointee.table.map { Unmanaged<SoupVirtualTable>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func bestIndex(
        _ table: UnsafeMutablePointer<sqlite3_vtab>?, _ info: UnsafeMutablePointer<sqlite3_index_info>?
    ) -> Int32 {
        guard let swiftTable = swiftTable(table), let info else { return SQLITE_MISUSE }
        return run(table, swiftTable.context) { try swiftTable.chooseBestPlan(info) }
    }

    /// Runs `body`; on error keeps it, sets the table's message and returns `SQLITE_ERROR`.
    private static func run(
        _ table: UnsafeMutablePointer<sqlite3_vtab>?, _ context: SmartQueryContext, _ body: () throws -> Void
    ) -> Int32 {
        do {
            try body()
            return SQLITE_OK
        } catch {
            let message = context.record(error)
            if let table {
                if let old = table.pointee.zErrMsg { sqlite3_free(old) }
                table.pointee.zErrMsg = SmartSQLConnection.sqliteString(message)
            }
            return SQLITE_ERROR
        }
    }

    // MARK: - Cursors

    private static func open(
        _ table: UnsafeMutablePointer<sqlite3_vtab>?,
        _ cursor: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_vtab_cursor>?>?
    ) -> Int32 {
        guard let swiftTable = swiftTable(table), let cursor else { return SQLITE_MISUSE }
        var reader: (any SoupReader)?
        let status = run(table, swiftTable.context) { reader = try swiftTable.context.currentReader() }
        guard let reader else { return status }
        let allocated = UnsafeMutablePointer<csqlite_soup_cursor>.allocate(capacity: 1)
        allocated.initialize(to: csqlite_soup_cursor())
        let swiftCursor = SoupTableCursor(reader: reader, soup: swiftTable.soup)
        allocated.pointee.cursor = Unmanaged.passRetained(swiftCursor).toOpaque()
        cursor.pointee = UnsafeMutableRawPointer(allocated).assumingMemoryBound(to: sqlite3_vtab_cursor.self)
        return SQLITE_OK
    }

    private static func close(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> Int32 {
        guard let cursor else { return SQLITE_OK }
        let allocated = UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: csqlite_soup_cursor.self)
        if let swiftCursor = allocated.pointee.cursor { Unmanaged<SoupTableCursor>.fromOpaque(swiftCursor).release() }
        allocated.deinitialize(count: 1)
        allocated.deallocate()
        return SQLITE_OK
    }

    /// The Swift cursor and table of a cursor.
    private static func parts(
        _ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?
    ) -> (cursor: SoupTableCursor, table: SoupVirtualTable)? {
        guard let cursor, let swiftTable = swiftTable(cursor.pointee.pVtab) else { return nil }
        let allocated = UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: csqlite_soup_cursor.self)
        guard let swiftCursor = allocated.pointee.cursor else { return nil }
        return (Unmanaged<SoupTableCursor>.fromOpaque(swiftCursor).takeUnretainedValue(), swiftTable)
    }

    private static func filter(
        _ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?, _ number: Int32, _ count: Int32,
        _ arguments: UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32 {
        guard let (swiftCursor, swiftTable) = parts(cursor) else { return SQLITE_MISUSE }
        return run(cursor?.pointee.pVtab, swiftTable.context) {
            try swiftTable.filter(swiftCursor, planNumber: number, arguments: arguments, count: count)
        }
    }

    private static func next(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> Int32 {
        guard let (swiftCursor, swiftTable) = parts(cursor) else { return SQLITE_MISUSE }
        return run(cursor?.pointee.pVtab, swiftTable.context) { try swiftCursor.next() }
    }

    private static func isAtEnd(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> Int32 {
        guard let (swiftCursor, _) = parts(cursor) else { return 1 }
        return swiftCursor.isAtEnd ? 1 : 0
    }

    private static func column(
        _ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?, _ context: OpaquePointer?, _ number: Int32
    ) -> Int32 {
        guard let (swiftCursor, swiftTable) = parts(cursor) else { return SQLITE_MISUSE }
        return run(cursor?.pointee.pVtab, swiftTable.context) {
            try swiftTable.column(swiftCursor, number: number, into: context)
        }
    }

    private static func rowid(
        _ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?, _ rowid: UnsafeMutablePointer<sqlite3_int64>?
    ) -> Int32 {
        guard let (swiftCursor, _) = parts(cursor), let rowid else { return SQLITE_MISUSE }
        rowid.pointee = swiftCursor.entryId
        return SQLITE_OK
    }
}
