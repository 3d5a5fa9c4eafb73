-- Migration v4-safe-cached-answers (GRDB records the identifier: once shipped, never edit this file; add a migration).
-- Answers are made safe (control characters, keys) before they are cached since this
-- version; those stored before were not, and must not be served again.
DELETE FROM responseCache;
