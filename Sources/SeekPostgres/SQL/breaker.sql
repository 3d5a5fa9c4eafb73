-- The circuit breaker of the shared database: BreakerState.admit and BreakerState.record
-- (SeekResilience/CircuitBreaker.swift) as one atomic call each, on the row of table seek_breaker.
-- The shared store runs only these; the embedded store runs the Swift; one table of cases
-- (Tests/SeekPostgresTests/CoordinationCases.swift) runs through both and they must agree.
-- `p_now` is the time of the call in seconds since 1970; NULL (every call of seek) is the database's
-- clock, one clock for the whole fleet.
-- Made by migration 3 (CREATE OR REPLACE): a change here needs a new migration that runs it again.

-- Allow, reject (until, why) or claim the one probe, fleet-wide.
CREATE OR REPLACE FUNCTION seek_breaker_admit(p_key text, p_lease double precision, p_now double precision DEFAULT NULL)
RETURNS TABLE (out_decision text, out_until double precision, out_reason text)
LANGUAGE plpgsql AS $$
DECLARE
    s seek_breaker%ROWTYPE;
    now_ timestamptz := coalesce(to_timestamp(p_now), clock_timestamp());
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
END $$;

-- Success closes, neutral frees the probe, failure counts and may open.
CREATE OR REPLACE FUNCTION seek_breaker_record(
    p_key text, p_outcome text, p_probe boolean, p_cause text, p_retry_after double precision,
    p_retry_reason text, p_rate_limited boolean, p_threshold bigint, p_base double precision,
    p_max double precision, p_max_retry_after double precision, p_window double precision,
    p_now double precision DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    s seek_breaker%ROWTYPE;
    now_ timestamptz := coalesce(to_timestamp(p_now), clock_timestamp());
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
END $$;
