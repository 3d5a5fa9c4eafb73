-- wrk script: every request a new query, so every search is a cache miss (issue 30's MISS mode).
-- Usage: wrk -s Benchmarks/miss.lua URL   where URL ends in a query parameter naming the query, e.g.
--        http://127.0.0.1:8080/api/v1/search?providers=openlibrary,giphy,aladin&q=harbor
-- Each thread numbers its own requests and appends "+t<thread>n<count>" to the URL, so no two
-- requests of a run (or of two runs: a random run id is added) ask the same query.
-- Counts answers that are not 200 or shorter than MIN_BYTES (env), printed as short_answers.
-- With SAME_QUERY=1 every request is the URL itself (searxng.sh's same-query load).
local threads = {}
local next_id = 0
local min_bytes = tonumber(os.getenv("MIN_BYTES") or "0")

function setup(thread)
    thread:set("thread_id", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

function init(args)
    math.randomseed(os.time() + thread_id * 7919)
    run = math.random(1, 1000000000)
    count = 0
    short = 0
end

-- SAME_QUERY=1 repeats the URL as given (the counting below still applies).
if os.getenv("SAME_QUERY") ~= "1" then
    function request()
        count = count + 1
        return wrk.format("GET", wrk.path .. "+r" .. run .. "t" .. thread_id .. "n" .. count)
    end
end

function response(status, headers, body)
    if status ~= 200 or #body < min_bytes then short = short + 1 end
end

function done(summary, latency, requests)
    local total = 0
    for _, thread in ipairs(threads) do total = total + thread:get("short") end
    io.write(string.format("short_answers %d\n", total))
end
