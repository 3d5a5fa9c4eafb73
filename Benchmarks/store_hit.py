#!/usr/bin/env python3
"""A cache hit read through the store, not memory: instance A answers COUNT new queries (filling the
shared response cache), then instance B — whose memory tier has never seen them — answers each once.
Prints B's p50/p90 in milliseconds. With two instances on one SQLite file this is the embedded store's
figure; on one PostgreSQL database, the shared store's.

Usage: store_hit.py A_URL B_URL COUNT [PREFIX]
"""
import http.client
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote, urlsplit

a_url, b_url, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
prefix = sys.argv[4] if len(sys.argv) > 4 else f"q{int(time.time())}"
queries = [f"/api/v1/search?q={quote(f'{prefix} harbor {n}')}&providers=openlibrary,giphy,aladin" for n in range(count)]


def get(base, target, connection=None):
    parts = urlsplit(base)
    connection = connection or http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.request("GET", target)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"{base}{target}: HTTP {response.status}: {body[:200]!r}")
    return connection


with ThreadPoolExecutor(16) as pool:
    list(pool.map(lambda target: get(a_url, target).close(), queries))
time.sleep(1)  # the cache writes happen after the answers

parts = urlsplit(b_url)
connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
samples = []
for target in queries:
    start = time.perf_counter()
    get(b_url, target, connection)
    samples.append((time.perf_counter() - start) * 1000)
samples.sort()
print(f"p50 {samples[len(samples) // 2]:.3f} ms  p90 {samples[int(len(samples) * 0.9)]:.3f} ms  ({count} queries)")
