#ifndef CSQLCIPHER_SHIM_H
#define CSQLCIPHER_SHIM_H

// SQLCipher's header, by its own directory: Debian installs it as sqlcipher/sqlite3.h beside
// SQLite's sqlite3.h, and this target must never see SQLite's.
#include <sqlcipher/sqlite3.h>

/// Binds text that SQLite copies at once: SQLITE_TRANSIENT is a cast of -1 to a function
/// pointer, a macro Swift cannot import.
static inline int csqlcipher_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

#endif
