-- Migration 2: the reader's own copy a favourite keeps (issue 49).
ALTER TABLE seek_favorite ADD COLUMN IF NOT EXISTS owned text;
