-- Migration v8-favorite-owned (GRDB records the identifier: once shipped, never edit this file; add a migration).
-- The reader's own copy a favourite's snapshot keeps (issue 49): `OwnedCopy` as JSON, or NULL.
ALTER TABLE favorite ADD COLUMN owned TEXT;
