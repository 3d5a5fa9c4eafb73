#!/usr/bin/env python3
"""Drives SECONDS of new searches (no cache) through every URL given, CONCURRENCY at a time, and
prints how many calls reached each provider path of the stand-in server, per second.

Usage: budget.py PROVIDERS_BASE SECONDS CONCURRENCY SEEK_URL...
"""
import http.client
import json
import sys
import threading
import time
from urllib.parse import urlsplit

base, seconds, concurrency, urls = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]


def counts():
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.request("GET", "/count")
    return json.loads(connection.getresponse().read())


before = counts()
stop = time.monotonic() + seconds
sequence = iter(range(10**9))
lock = threading.Lock()


def worker(index):
    parts = urlsplit(urls[index % len(urls)])
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    while time.monotonic() < stop:
        with lock:
            n = next(sequence)
        connection.request("GET", f"/api/v1/search?q=budget+{n}&providers=openlibrary&no_cache=true")
        connection.getresponse().read()


threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
started = time.monotonic()
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
elapsed = time.monotonic() - started
after = counts()
calls = after.get("/ol/search.json", 0) - before.get("/ol/search.json", 0)
print(f"{calls} Open Library calls in {elapsed:.1f} s = {calls / elapsed:.2f}/s through {len(urls)} instance(s)")
