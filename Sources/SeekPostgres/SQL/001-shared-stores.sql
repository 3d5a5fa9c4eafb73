-- Migration 1: favourites, history, response cache, cursors, breakers, rate limits, instances.
-- Applied once; a change to the schema is a new migration, never an edit here. (The breaker's and
-- the bucket's functions, made here at first, are in breaker.sql and bucket.sql since migration 3.)

-- `owner` is '' for the owner of a personal instance; a public instance's visitors get ids of their own.
CREATE TABLE seek_favorite (
    owner text NOT NULL DEFAULT '', id text NOT NULL, provider text NOT NULL, kind text NOT NULL,
    title text NOT NULL, creators text NOT NULL, image_url text, added_at double precision NOT NULL,
    seq bigserial NOT NULL, PRIMARY KEY (owner, id));

CREATE TABLE seek_history (
    owner text NOT NULL DEFAULT '', normalized_query text NOT NULL, query text NOT NULL, providers text NOT NULL,
    searched_at double precision NOT NULL, seq bigserial NOT NULL, PRIMARY KEY (owner, normalized_query));

CREATE INDEX seek_history_recent ON seek_history (owner, searched_at DESC, seq DESC);

CREATE UNLOGGED TABLE seek_response_cache (
    key text PRIMARY KEY, provider text NOT NULL, kind text NOT NULL, body bytea NOT NULL,
    stored_at double precision NOT NULL);

CREATE INDEX seek_response_cache_age ON seek_response_cache (stored_at);

CREATE UNLOGGED TABLE seek_cursor (
    token text PRIMARY KEY, cursor text NOT NULL, created_at timestamptz NOT NULL DEFAULT clock_timestamp());

CREATE INDEX seek_cursor_age ON seek_cursor (created_at);

CREATE UNLOGGED TABLE seek_breaker (
    key text PRIMARY KEY, consecutive_failures integer NOT NULL DEFAULT 0, open_until timestamptz,
    probe_started_at timestamptz, reason text, last_failure_at timestamptz);

CREATE UNLOGGED TABLE seek_bucket (
    key text PRIMARY KEY, tokens double precision NOT NULL, updated_at timestamptz NOT NULL);

CREATE UNLOGGED TABLE seek_instance (id text PRIMARY KEY, seen_at timestamptz NOT NULL);

-- An instance says it is alive; answers how many did in the last 30 seconds.
CREATE FUNCTION seek_heartbeat(p_id text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO seek_instance (id, seen_at) VALUES (p_id, clock_timestamp())
        ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at;
    DELETE FROM seek_instance WHERE seen_at < clock_timestamp() - interval '1 day';
    RETURN (SELECT count(*) FROM seek_instance WHERE seen_at > clock_timestamp() - interval '30 seconds');
END $$;

-- A search moves its query to the top of the owner's history, which keeps the newest `p_limit`:
-- the rule of every history store (HistoryStore in SeekStore), newest `searched_at` first, then the
-- one recorded last. Its commit does not wait for the disk (the embedded store's SQLite does not
-- either): a crash of the database may lose the last moments of history, never a favourite.
CREATE FUNCTION seek_history_record(
    p_owner text, p_normalized text, p_query text, p_providers text, p_at double precision, p_limit bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    IF p_limit > 0 THEN
        INSERT INTO seek_history AS h (owner, normalized_query, query, providers, searched_at)
        VALUES (p_owner, p_normalized, p_query, p_providers, p_at)
        ON CONFLICT (owner, normalized_query) DO UPDATE SET query = excluded.query,
            providers = excluded.providers, searched_at = excluded.searched_at,
            seq = nextval(pg_get_serial_sequence('seek_history', 'seq'));
    ELSE
        DELETE FROM seek_history WHERE owner = p_owner AND normalized_query = p_normalized;
    END IF;
    DELETE FROM seek_history WHERE owner = p_owner AND seq NOT IN (
        SELECT seq FROM seek_history WHERE owner = p_owner
        ORDER BY searched_at DESC, seq DESC LIMIT greatest(p_limit, 0));
END $$;
