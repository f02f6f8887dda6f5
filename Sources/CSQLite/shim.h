#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

// SQLite's C API from sqlite3.h: Debian's libsqlite3-dev, or the system SQLite on Apple
// platforms, found through pkg-config (sqlite3.pc). Smart SQL runs queries on an in-memory
// connection whose only tables are virtual tables over the soups (docs/soups.md, Smart SQL).
#include <sqlite3.h>

/// `SQLITE_TRANSIENT` casts -1 to a function pointer, which Swift cannot spell: SQLite copies
/// a value given with it before the call returns.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// `sqlite3_db_config` is variadic, which Swift cannot call. Turns on double-quoted string
/// literals in queries (SQLite's historical default, which builds may turn off): SmartStore's
/// own tests compare a field with `""`.
static inline int csqlite_allow_double_quoted_strings(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 1, (int *)0);
}

/// A virtual table as SQLite sees it: its base struct first, as `sqlite3_vtab` requires, then
/// the Swift object that answers for it (retained while SQLite holds the table).
typedef struct {
    sqlite3_vtab base;
    void *table;
} csqlite_soup_table;

/// A virtual table cursor: its base struct first, then the Swift cursor (retained until closed).
typedef struct {
    sqlite3_vtab_cursor base;
    void *cursor;
} csqlite_soup_cursor;

#endif
