-- Migration 3: the breaker's and the bucket's functions take the time of the call (`p_now`, NULL:
-- the database's clock), so one table of cases runs through them and through the embedded store
-- (Tests/SeekPostgresTests/CoordinationCases.swift). The versions of migration 1 go; this migration
-- then runs breaker.sql and bucket.sql. Calls without `p_now` (an instance not yet upgraded) still
-- resolve, to the new functions.
DROP FUNCTION IF EXISTS seek_breaker_admit(text, double precision);
DROP FUNCTION IF EXISTS seek_breaker_record(
    text, text, boolean, text, double precision, text, boolean, bigint, double precision, double precision,
    double precision, double precision);
DROP FUNCTION IF EXISTS seek_bucket_reserve(text, double precision, double precision, double precision);
