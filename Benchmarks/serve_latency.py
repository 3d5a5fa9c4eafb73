#!/usr/bin/env python3
"""Times sequential GETs over one keep-alive connection and prints p50/p99 in milliseconds.

Usage: serve_latency.py URL COUNT [WARMUP]
"""
import http.client
import sys
import time
from urllib.parse import urlsplit

url, count = sys.argv[1], int(sys.argv[2])
warmup = int(sys.argv[3]) if len(sys.argv) > 3 else 3
parts = urlsplit(url)
target = parts.path + ("?" + parts.query if parts.query else "")
connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
samples = []
for index in range(warmup + count):
    start = time.perf_counter()
    connection.request("GET", target)
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - start
    if response.status != 200:
        sys.exit(f"{url}: HTTP {response.status}: {body[:200]!r}")
    if index >= warmup:
        samples.append(elapsed * 1000)
samples.sort()


def percentile(p):
    return samples[min(len(samples) - 1, int(round(p / 100 * (len(samples) - 1))))]


print(f"p50 {percentile(50):.3f} p99 {percentile(99):.3f} n {len(samples)}")
