-- The list of migrations applied (Schema.swift): made before the first one, under the advisory lock.
CREATE TABLE IF NOT EXISTS seek_schema (
    version integer PRIMARY KEY, summary text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
