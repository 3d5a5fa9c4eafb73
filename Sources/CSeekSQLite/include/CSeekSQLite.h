#ifndef CSEEKSQLITE_H
#define CSEEKSQLITE_H

#include <sqlite3.h>

/// Stops SQLite from checkpointing the WAL when the connection closes, so a `seek` process does
/// not end with two fsyncs; SQLite's automatic checkpoints (every 1000 WAL pages) still run.
/// A wrapper because sqlite3_db_config() is variadic, which Swift cannot call.
static inline int seek_sqlite3_skip_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#endif
