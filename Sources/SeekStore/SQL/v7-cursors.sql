-- Migration v7-cursors (GRDB records the identifier: once shipped, never edit this file; add a migration).
-- The CLI's short `--cursor` tokens and the cursors they stand for (`SQLiteCursorStore`).
CREATE TABLE cursor (
    token TEXT NOT NULL PRIMARY KEY,
    cursor TEXT NOT NULL,
    createdAt REAL NOT NULL
);
CREATE INDEX cursor_createdAt ON cursor(createdAt);
