#!/usr/bin/env python3
"""Loopback stand-in for Open Library, GIPHY and Aladin that answers every search after a fixed delay.

Used by fanout.sh to time a whole `seek search` process against three providers that each take
DELAY seconds: with a concurrent fan-out the process takes about DELAY, not 3 x DELAY.
Prints the chosen port on its first line, then serves until killed. `GET /count` answers how many
requests each path has had (shared_store.sh counts the calls a rate limit let through).
JITTER=0.2 spreads each delay over ±20 %; VARY=1 numbers each answer's ids and titles by request.
"""
import json
import math
import os
import random
import socket
import struct
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DELAY = float(sys.argv[1]) if len(sys.argv) > 1 else 0.2


def jitter_setting():
    """JITTER=0.2 spreads each answer's delay evenly over DELAY * (1 ± 0.2), as real providers vary."""
    try:
        value = float(os.environ.get("JITTER", "0") or 0)
    except ValueError:
        sys.exit("JITTER must be a number from 0 to 1")
    return min(max(value, 0.0), 1.0) if math.isfinite(value) else 0.0


JITTER = jitter_setting()
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux


def open_library(n=""):
    docs = [{"key": f"/works/OL{n}{i}W", "title": f"Harbor book {n}{i}", "author_name": [f"Author {i}"],
             "first_publish_year": 1990 + i, "cover_i": 1000 + i,
             "isbn": [f"978000000{i:03d}"]} for i in range(20)]
    return {"numFound": 20, "start": 0, "docs": docs}


def giphy(n=""):
    gifs = [{"type": "gif", "id": f"gif{n}{i}", "url": f"https://giphy.com/gifs/gif{n}{i}", "title": f"Harbor {n}{i}",
             "rating": "g", "images": {
                 "fixed_width": {"url": f"https://media.giphy.com/media/gif{i}/200w.gif", "width": "200", "height": "150"},
                 "original": {"url": f"https://media.giphy.com/media/gif{i}/giphy.gif", "width": "480", "height": "360"}}}
            for i in range(20)]
    return {"data": gifs, "pagination": {"total_count": 20, "count": 20, "offset": 0},
            "meta": {"status": 200, "msg": "OK", "response_id": "bench"}}


def aladin(n=""):
    items = [{"title": f"항구 {n}{i}", "link": f"http://www.aladin.co.kr/shop/wproduct.aspx?ItemId={n}{i}",
              "author": "저자 (지은이)", "pubDate": "2020-01-01", "isbn": "", "isbn13": f"979110000{i:04d}",
              "itemId": 100 + i, "cover": f"https://image.aladin.co.kr/product/{i}/cover.jpg", "publisher": "출판사"}
             for i in range(20)]
    return {"version": "20131101", "totalResults": 20, "startIndex": 1, "itemsPerPage": 20, "query": "harbor",
            "item": items}


BODIES = {
    "/ol/search.json": json.dumps(open_library()).encode(),
    "/giphy/v1/gifs/search": json.dumps(giphy()).encode(),
    "/aladin/ttb/api/ItemSearch.aspx": json.dumps(aladin(), ensure_ascii=False).encode(),
}


def response(status, body):
    head = (f"HTTP/1.1 {status}\r\nContent-Type: application/json; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    return head + body


RESPONSES = {path: response("200 OK", body) for path, body in BODIES.items()}
# VARY=1: every answer's ids and titles carry a request number, so no two answers are equal, as two
# real queries' are not (the same answer every time lets the engine's merge memo skip the merge).
VARY = os.environ.get("VARY", "") == "1"
MAKERS = {"/ol/search.json": open_library, "/giphy/v1/gifs/search": giphy, "/aladin/ttb/api/ItemSearch.aspx": aladin}
COUNTS = Counter()
COUNTS_LOCK = threading.Lock()
NOT_FOUND = response("404 Not Found", b'{"error": "not found"}')


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # The kernel stamps each segment as it arrives; the delay counts from the request's arrival,
        # so that this server's own latency (a thread to wake, the GIL, Python's parsing) is not
        # charged to seek.
        self.connection.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)

    def handle_one_request(self):
        self.received = arrival(self.connection)
        super().handle_one_request()

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/count":
            with COUNTS_LOCK:
                self.wfile.write(response("200 OK", json.dumps(COUNTS).encode()))
            return
        with COUNTS_LOCK:
            COUNTS[path] += 1
            number = COUNTS[path]
        answer = RESPONSES.get(path, NOT_FOUND)
        if VARY and path in MAKERS:
            body = json.dumps(MAKERS[path](f"{number}0"), ensure_ascii=False).encode()
            answer = response("200 OK", body)
        delay = DELAY * (1 + random.uniform(-JITTER, JITTER)) if JITTER else DELAY
        time.sleep(max(0.0, delay - (time.time() - self.received)))
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def arrival(connection):
    """When the next request's first bytes reached this host (wall clock), without consuming them."""
    try:
        _, ancillary, _, _ = connection.recvmsg(1, socket.CMSG_SPACE(16), socket.MSG_PEEK)
    except OSError:
        return time.time()
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            seconds, nanoseconds = struct.unpack("qq", data[:16])
            return seconds + nanoseconds / 1e9
    return time.time()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


if __name__ == "__main__":
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
