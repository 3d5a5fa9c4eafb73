-- Migration v3-response-cache (GRDB records the identifier: once shipped, never edit this file; add a migration).
CREATE TABLE responseCache (
    key TEXT NOT NULL PRIMARY KEY,
    provider TEXT NOT NULL,
    kind TEXT NOT NULL,
    body BLOB NOT NULL,
    storedAt REAL NOT NULL
);
CREATE INDEX responseCache_storedAt ON responseCache(storedAt);
