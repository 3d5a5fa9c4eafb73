-- The rate-limit bucket of the shared database: TokenBucketState.reserve
-- (SeekResilience/RateLimitedTransport.swift) as one atomic call, on the row of table seek_bucket:
-- a token now, one after a wait, or a refusal when the wait is too long. The shared store runs only
-- this; one table of cases (Tests/SeekPostgresTests/CoordinationCases.swift) runs through it and the
-- embedded store and they must agree. `p_now`: as in breaker.sql (NULL: the database's clock).
-- Made by migration 3 (CREATE OR REPLACE): a change here needs a new migration that runs it again.
CREATE OR REPLACE FUNCTION seek_bucket_reserve(
    p_key text, p_rate double precision, p_burst double precision, p_max_wait double precision,
    p_now double precision DEFAULT NULL)
RETURNS TABLE (out_granted boolean, out_wait double precision)
LANGUAGE plpgsql AS $$
DECLARE
    now_ timestamptz := coalesce(to_timestamp(p_now), clock_timestamp());
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
END $$;
