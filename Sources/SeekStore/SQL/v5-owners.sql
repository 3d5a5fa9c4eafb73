-- Migration v5-owners (GRDB records the identifier: once shipped, never edit this file; add a migration).
-- Whose favourites and history: '' for the owner (the CLI, a personal server), a visitor's
-- id on a public instance. Keys become (owner, id) and (owner, normalizedQuery).
CREATE TABLE favorite_new (
    owner TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    provider TEXT NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    creators TEXT NOT NULL,
    imageURL TEXT,
    addedAt REAL NOT NULL,
    PRIMARY KEY (owner, id)
);
INSERT INTO favorite_new (owner, id, provider, kind, title, creators, imageURL, addedAt)
    SELECT '', id, provider, kind, title, creators, imageURL, addedAt FROM favorite;
DROP TABLE favorite;
ALTER TABLE favorite_new RENAME TO favorite;
CREATE INDEX favorite_owner_addedAt ON favorite(owner, addedAt);
CREATE TABLE searchHistory_new (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    owner TEXT NOT NULL DEFAULT '',
    normalizedQuery TEXT NOT NULL,
    query TEXT NOT NULL,
    providers TEXT NOT NULL,
    searchedAt REAL NOT NULL,
    UNIQUE (owner, normalizedQuery)
);
INSERT INTO searchHistory_new (seq, owner, normalizedQuery, query, providers, searchedAt)
    SELECT seq, '', normalizedQuery, query, providers, searchedAt FROM searchHistory;
DROP TABLE searchHistory;
ALTER TABLE searchHistory_new RENAME TO searchHistory;
CREATE INDEX searchHistory_owner_searchedAt ON searchHistory(owner, searchedAt);
