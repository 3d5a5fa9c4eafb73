-- Migration v1-favorites (GRDB records the identifier: once shipped, never edit this file; add a migration).
-- Snapshots of favourite items, so `favorites list` works offline. Times are Unix seconds.
CREATE TABLE favorite (
    id TEXT NOT NULL PRIMARY KEY,
    provider TEXT NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    creators TEXT NOT NULL,
    imageURL TEXT,
    addedAt REAL NOT NULL
);
CREATE INDEX favorite_addedAt ON favorite(addedAt);
