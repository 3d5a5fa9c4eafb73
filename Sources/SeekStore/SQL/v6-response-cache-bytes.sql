-- Migration v6-response-cache-bytes (GRDB records the identifier: once shipped, never edit this file; add a migration).
-- Each answer's size beside its age, in one index: bounding the cache by bytes reads the
-- index alone, not every answer's pages (256 MB of answers: 50 ms against a few).
ALTER TABLE responseCache ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE responseCache SET bytes = length(body);
DROP INDEX responseCache_storedAt;
CREATE INDEX responseCache_storedAt_bytes ON responseCache(storedAt, bytes);
