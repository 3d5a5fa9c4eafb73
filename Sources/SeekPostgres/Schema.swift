import Logging
import PostgresNIO

/// The shared database's schema: numbered migrations, applied in order at start under an advisory
/// lock, so several instances starting at once migrate it once. `seek_schema` lists those applied.
///
/// Coordination state (breakers, rate-limit buckets, instances, cursors, cached answers) lives in
/// UNLOGGED tables: fast, and losing it in a crash costs nothing that matters. Each of its
/// transitions is one function call, one atomic round trip timed by the database's clock.
enum Schema {
    /// The advisory lock that serialises migrations.
    static let lockKey: Int64 = 0x5EEC_5C4E_3A00

    struct Migration {
        let version: Int
        let summary: String
        let statements: [String]
    }

    /// The latest version; a database at it needs no lock.
    static var latest: Int { migrations.last?.version ?? 0 }

    /// Brings the database to `latest`: a read when it is there already, else the migrations still
    /// missing, each in a transaction, under the advisory lock.
    static func migrate(_ client: PostgresClient) async throws {
        if try await currentVersion(client) >= latest { return }
        try await client.withConnection { connection in
            _ = try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS seek_schema (
                        version integer PRIMARY KEY, summary text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                let rows = try await connection.query("SELECT coalesce(max(version), 0) FROM seek_schema", logger: logger)
                var current = 0
                for try await version in rows.decode(Int.self) { current = version }
                for migration in migrations where migration.version > current {
                    try await connection.withTransaction(logger: logger) { connection in
                        for statement in migration.statements {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query(
                            "INSERT INTO seek_schema (version, summary) VALUES (\(migration.version), \(migration.summary))", logger: logger)
                    }
                }
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
            _ = try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
        }
    }

    /// The applied version: 0 for a database Seek never used.
    static func currentVersion(_ client: PostgresClient) async throws -> Int {
        let exists = try await client.query("SELECT to_regclass('seek_schema') IS NOT NULL").first(Bool.self) ?? false
        guard exists else { return 0 }
        return try await client.query("SELECT coalesce(max(version), 0) FROM seek_schema").first(Int.self) ?? 0
    }

    private static let logger = Logger(label: "seek.postgres.schema", factory: { _ in SwiftLogNoOpLogHandler() })

    static let migrations: [Migration] = [
        Migration(version: 1, summary: "favourites, history, response cache, cursors, breakers, rate limits, instances", statements: [
            // `owner` is '' for the owner of a personal instance; a public instance's visitors get ids of their own.
            """
            CREATE TABLE seek_favorite (
                owner text NOT NULL DEFAULT '', id text NOT NULL, provider text NOT NULL, kind text NOT NULL,
                title text NOT NULL, creators text NOT NULL, image_url text, added_at double precision NOT NULL,
                seq bigserial NOT NULL, PRIMARY KEY (owner, id))
            """,
            """
            CREATE TABLE seek_history (
                owner text NOT NULL DEFAULT '', normalized_query text NOT NULL, query text NOT NULL, providers text NOT NULL,
                searched_at double precision NOT NULL, seq bigserial NOT NULL, PRIMARY KEY (owner, normalized_query))
            """,
            "CREATE INDEX seek_history_recent ON seek_history (owner, searched_at DESC, seq DESC)",
            """
            CREATE UNLOGGED TABLE seek_response_cache (
                key text PRIMARY KEY, provider text NOT NULL, kind text NOT NULL, body bytea NOT NULL,
                stored_at double precision NOT NULL)
            """,
            "CREATE INDEX seek_response_cache_age ON seek_response_cache (stored_at)",
            """
            CREATE UNLOGGED TABLE seek_cursor (
                token text PRIMARY KEY, cursor text NOT NULL, created_at timestamptz NOT NULL DEFAULT clock_timestamp())
            """,
            "CREATE INDEX seek_cursor_age ON seek_cursor (created_at)",
            """
            CREATE UNLOGGED TABLE seek_breaker (
                key text PRIMARY KEY, consecutive_failures integer NOT NULL DEFAULT 0, open_until timestamptz,
                probe_started_at timestamptz, reason text, last_failure_at timestamptz)
            """,
            """
            CREATE UNLOGGED TABLE seek_bucket (
                key text PRIMARY KEY, tokens double precision NOT NULL, updated_at timestamptz NOT NULL)
            """,
            "CREATE UNLOGGED TABLE seek_instance (id text PRIMARY KEY, seen_at timestamptz NOT NULL)",
            // BreakerState.admit: allow, reject (until, why) or claim the one probe, fleet-wide.
            """
            CREATE FUNCTION seek_breaker_admit(p_key text, p_lease double precision)
            RETURNS TABLE (out_decision text, out_until double precision, out_reason text)
            LANGUAGE plpgsql AS $$
            DECLARE
                s seek_breaker%ROWTYPE;
                now_ timestamptz := clock_timestamp();
                lease interval := make_interval(secs => least(greatest(p_lease, 0), 86400));
            BEGIN
                SELECT * INTO s FROM seek_breaker WHERE key = p_key FOR UPDATE;
                IF NOT FOUND OR s.open_until IS NULL THEN
                    RETURN QUERY SELECT 'allow'::text, NULL::double precision, NULL::text;
                ELSIF now_ < s.open_until THEN
                    RETURN QUERY SELECT 'reject'::text, extract(epoch FROM s.open_until)::double precision,
                        coalesce(s.reason, 'cooling down');
                ELSIF s.probe_started_at IS NOT NULL AND now_ < s.probe_started_at + lease THEN
                    RETURN QUERY SELECT 'reject'::text, extract(epoch FROM s.probe_started_at + lease)::double precision,
                        'a trial call is in flight after ' || coalesce(s.reason, 'failures');
                ELSE
                    UPDATE seek_breaker SET probe_started_at = now_ WHERE key = p_key;
                    RETURN QUERY SELECT 'probe'::text, NULL::double precision, NULL::text;
                END IF;
            END $$
            """,
            // BreakerState.record: success closes, neutral frees the probe, failure counts and may open.
            """
            CREATE FUNCTION seek_breaker_record(
                p_key text, p_outcome text, p_probe boolean, p_cause text, p_retry_after double precision,
                p_retry_reason text, p_rate_limited boolean, p_threshold bigint, p_base double precision,
                p_max double precision, p_max_retry_after double precision, p_window double precision)
            RETURNS void LANGUAGE plpgsql AS $$
            DECLARE
                s seek_breaker%ROWTYPE;
                now_ timestamptz := clock_timestamp();
                v_until timestamptz;
                v_why text := p_cause;
                v_failures bigint;
                v_backoff timestamptz;
            BEGIN
                IF p_outcome = 'success' THEN
                    DELETE FROM seek_breaker WHERE key = p_key;
                    RETURN;
                ELSIF p_outcome <> 'failure' THEN
                    IF p_probe THEN UPDATE seek_breaker SET probe_started_at = NULL WHERE key = p_key; END IF;
                    RETURN;
                END IF;
                INSERT INTO seek_breaker (key) VALUES (p_key) ON CONFLICT (key) DO NOTHING;
                SELECT * INTO s FROM seek_breaker WHERE key = p_key FOR UPDATE;
                IF s.open_until IS NULL AND s.last_failure_at IS NOT NULL
                   AND extract(epoch FROM now_ - s.last_failure_at) > p_window THEN
                    s.consecutive_failures := 0;
                END IF;
                s.consecutive_failures := least(s.consecutive_failures, 1000000) + 1;
                s.last_failure_at := now_;
                IF p_probe THEN s.probe_started_at := NULL; END IF;
                IF p_retry_after IS NOT NULL AND p_retry_after > 0 THEN
                    v_until := now_ + make_interval(secs => least(p_retry_after, p_max_retry_after, 31536000));
                    v_why := p_retry_reason;
                END IF;
                -- The server's own Retry-After names the time to come back; without one the backoff does.
                IF (p_probe OR p_rate_limited OR s.consecutive_failures >= p_threshold) AND v_until IS NULL THEN
                    v_failures := CASE WHEN p_rate_limited THEN s.consecutive_failures + p_threshold - 1
                                       ELSE s.consecutive_failures END;
                    v_backoff := now_ + make_interval(secs => least(
                        p_base * power(2::double precision, least(30, greatest(0, v_failures - p_threshold))), p_max, 31536000));
                    v_until := v_backoff;
                    IF p_retry_after IS NULL THEN
                        v_why := CASE WHEN s.consecutive_failures > 1
                                      THEN s.consecutive_failures || ' failures in a row, last: ' || p_cause
                                      ELSE p_cause END;
                    END IF;
                END IF;
                IF v_until IS NOT NULL AND NOT (s.open_until IS NOT NULL AND s.open_until > v_until AND s.open_until > now_) THEN
                    s.open_until := v_until;
                    s.reason := v_why;
                END IF;
                UPDATE seek_breaker SET consecutive_failures = s.consecutive_failures, open_until = s.open_until,
                    probe_started_at = s.probe_started_at, reason = s.reason, last_failure_at = s.last_failure_at
                WHERE key = p_key;
            END $$
            """,
            // TokenBucketState.reserve: a token now, one after a wait, or a refusal when the wait is too long.
            """
            CREATE FUNCTION seek_bucket_reserve(p_key text, p_rate double precision, p_burst double precision, p_max_wait double precision)
            RETURNS TABLE (out_granted boolean, out_wait double precision)
            LANGUAGE plpgsql AS $$
            DECLARE
                now_ timestamptz := clock_timestamp();
                v_tokens double precision;
                v_updated timestamptz;
                v_wait double precision := 0;
                v_granted boolean := true;
            BEGIN
                SELECT tokens, updated_at INTO v_tokens, v_updated FROM seek_bucket WHERE key = p_key FOR UPDATE;
                IF NOT FOUND THEN
                    INSERT INTO seek_bucket (key, tokens, updated_at) VALUES (p_key, p_burst, now_) ON CONFLICT (key) DO NOTHING;
                    SELECT tokens, updated_at INTO v_tokens, v_updated FROM seek_bucket WHERE key = p_key FOR UPDATE;
                END IF;
                v_tokens := least(p_burst, v_tokens + greatest(0, extract(epoch FROM now_ - v_updated)::double precision) * p_rate);
                v_updated := greatest(v_updated, now_);
                IF v_tokens >= 1 THEN
                    v_tokens := v_tokens - 1;
                ELSE
                    v_wait := (1 - v_tokens) / p_rate;
                    IF v_wait > p_max_wait THEN
                        v_granted := false;
                    ELSE
                        v_tokens := v_tokens - 1;
                    END IF;
                END IF;
                UPDATE seek_bucket SET tokens = v_tokens, updated_at = v_updated WHERE key = p_key;
                RETURN QUERY SELECT v_granted, v_wait;
            END $$
            """,
            // An instance says it is alive; answers how many did in the last 30 seconds.
            """
            CREATE FUNCTION seek_heartbeat(p_id text) RETURNS integer LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO seek_instance (id, seen_at) VALUES (p_id, clock_timestamp())
                    ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at;
                DELETE FROM seek_instance WHERE seen_at < clock_timestamp() - interval '1 day';
                RETURN (SELECT count(*) FROM seek_instance WHERE seen_at > clock_timestamp() - interval '30 seconds');
            END $$
            """,
            // A search moves its query to the top of the owner's history, which keeps the newest `p_limit`.
            // Its commit does not wait for the disk (the embedded store's SQLite does not either): a
            // crash of the database may lose the last moments of history, never a favourite.
            """
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
            END $$
            """,
        ]),
        Migration(version: 2, summary: "the reader's own copy a favourite keeps (issue 49)", statements: [
            "ALTER TABLE seek_favorite ADD COLUMN IF NOT EXISTS owned text",
        ]),
    ]
}
