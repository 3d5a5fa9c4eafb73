-- Seek's own index of a Calibre library (`CalibreIndex`, in Seek's cache folder; the library's
-- metadata.db is only ever read). Run whenever the index's layout (`CalibreIndex.layout`) differs:
-- an index of another layout is dropped and built again from the library, so this file may change
-- together with that number.
DROP TABLE IF EXISTS meta;
DROP TABLE IF EXISTS books;
DROP TABLE IF EXISTS book_text;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE books (
    id INTEGER PRIMARY KEY, stamp TEXT NOT NULL, title TEXT NOT NULL, authors TEXT NOT NULL, year INTEGER,
    isbns TEXT NOT NULL, other TEXT NOT NULL, formats TEXT NOT NULL, path TEXT NOT NULL, has_cover INTEGER NOT NULL);
CREATE VIRTUAL TABLE book_text USING fts5(
    title, authors, series, tags, publisher, identifiers,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
