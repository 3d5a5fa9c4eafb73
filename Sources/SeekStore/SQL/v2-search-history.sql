-- Migration v2-search-history (GRDB records the identifier: once shipped, never edit this file; add a migration).
-- `seq` orders entries (most recent = largest); one row per normalised query.
CREATE TABLE searchHistory (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    normalizedQuery TEXT NOT NULL UNIQUE,
    query TEXT NOT NULL,
    providers TEXT NOT NULL,
    searchedAt REAL NOT NULL
);
