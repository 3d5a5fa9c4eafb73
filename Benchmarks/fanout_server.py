#!/usr/bin/env python3
"""Loopback stand-in for Open Library, GIPHY and Aladin that answers every search after a fixed delay.

Used by fanout.sh to time a whole `seek search` process against three providers that each take
DELAY seconds: with a concurrent fan-out the process takes about DELAY, not 3 x DELAY.
Prints the chosen port on its first line, then serves until killed. `GET /count` answers how many
requests each path has had (shared_store.sh counts the calls a rate limit let through).
JITTER=0.2 spreads each delay over ±20 %; VARY=1 numbers each answer's ids and titles by request.

SOURCES=8 (fanout8.sh, issue 47) serves the eight remote built-in sources instead, each at its real
API's path and with a recorded success body from ../shared/fixtures/<id>/ (FIXTURES=DIR elsewhere):
  /ol/search.json (Open Library), /giphy/v1/gifs/search, /aladin/ttb/api/ItemSearch.aspx,
  /books/v1/volumes (Google Books), /v3/search/book (Kakao), /v1/search/book.json (Naver),
  /works (Crossref), /books/ (Gutendex).
Each answers as many items as the request asks for (maxResults, size, display, rows, limit,
MaxResults; up to the API's maximum; Gutendex's page is always its recording's 32): the recorded
items first, then copies of them whose ids, titles and ISBNs (valid ones) carry a copy number, so
that no two rows are the same book. Kakao without `Authorization: KakaoAK <key>` and Naver without
both X-Naver-Client-Id and X-Naver-Client-Secret get their recorded 401 bodies, as the real APIs do.
"""
import json
import math
import os
import random
import re
import socket
import struct
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

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


# SOURCES=8: the eight remote built-in sources from their recordings.
EIGHT = os.environ.get("SOURCES", "") == "8"
FIXTURES = Path(os.environ.get("FIXTURES", "") or Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures")


class Recorded:
    """One source's stand-in: a recorded search answer and how to make more items like its own."""

    def __init__(self, source, file, items, count, maximum, ids, title, unauthorized=None):
        self.source, self.items_path, self.count_parameter, self.maximum = source, items, count, maximum
        self.ids, self.title = ids, title
        path = FIXTURES / source / file
        try:
            self.document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            sys.exit(f"fanout_server.py: {source}: cannot read {path}: {error}")
        self.recorded = list(self.list_in(self.document))
        if not self.recorded:
            sys.exit(f"fanout_server.py: {source}: {path} has no items at {'.'.join(items)}")
        self.unauthorized = None
        if unauthorized:
            self.unauthorized = response("401 Unauthorized", (FIXTURES / source / unauthorized).read_bytes())
        self.cache = {}

    def list_in(self, document):
        for key in self.items_path:
            document = document[key]
        return document

    def wanted(self, query):
        if not self.count_parameter:
            return len(self.recorded)
        try:
            asked = int(query.get(self.count_parameter, [""])[0])
        except ValueError:
            return len(self.recorded)
        return max(0, min(asked, self.maximum))

    def body(self, query, number):
        wanted = self.wanted(query)
        answer = self.cache.get(wanted)
        if answer is None:
            answer = self.cache[wanted] = self.make(wanted)
        # VARY=1: the request's number in place of the mark (fixed width: Content-Length holds).
        return answer.replace(MARK, f"{number % 1_000_000:06d}".encode()) if VARY else answer

    def make(self, wanted):
        items = []
        for index in range(wanted):
            copy, original = divmod(index, len(self.recorded))
            item = self.recorded[original]
            tag = "-".join(part for part in ("r" + MARK.decode() if VARY else "", f"c{copy}" if copy else "") if part)
            items.append(self.tagged(item, tag, copy) if tag else item)
        document = dict(self.document)  # shallow: only the path down to the list is replaced
        holder = document
        for key in self.items_path[:-1]:
            holder[key] = dict(holder[key])
            holder = holder[key]
        holder[self.items_path[-1]] = items
        return response("200 OK", json.dumps(document, ensure_ascii=False).encode())

    def tagged(self, item, tag, copy):
        """The item with `tag` on its ids and title, and (for a copy) other valid ISBNs."""
        item = with_other_isbns(item, copy) if copy else json.loads(json.dumps(item))
        for key in self.ids:
            value = item.get(key)
            if isinstance(value, bool):
                continue
            if isinstance(value, int):  # numbers: a copy's own, the same in every answer
                item[key] = value + 10_000_000 * copy
            elif isinstance(value, str) and OPEN_LIBRARY_KEY.match(value):  # OL27448W: digits before the kind letter
                item[key] = f"{value[:-1]}{MARK.decode() if VARY else '000000'}{copy:02d}{value[-1]}"
            elif isinstance(value, str):
                item[key] = f"{value}-{tag}"
        holder, key = item, self.title[-1]
        for part in self.title[:-1]:
            holder = holder.get(part, {})
        value = holder.get(key)
        if isinstance(value, str):
            holder[key] = f"{value} {tag}"
        elif isinstance(value, list) and value and isinstance(value[0], str):
            holder[key] = [f"{value[0]} {tag}"] + value[1:]
        return item


MARK = b"@@@@@@"  # where VARY=1 writes each answer's request number (six digits)
OPEN_LIBRARY_KEY = re.compile(r"^(?:/works/)?OL[0-9]+[WM]$")
ISBN_LIKE = re.compile(r"(?<![0-9])(?:97[89][0-9]{10}|[0-9]{9}[0-9X])(?![0-9])")


def with_other_isbns(value, copy):
    """A deep copy of `value` whose strings' ISBN-like numbers are other_isbn's (numbers stay numbers)."""
    if isinstance(value, dict):
        return {key: with_other_isbns(inner, copy) for key, inner in value.items()}
    if isinstance(value, list):
        return [with_other_isbns(inner, copy) for inner in value]
    if isinstance(value, str):
        return ISBN_LIKE.sub(lambda match: other_isbn(match.group(0), copy), value)
    return value


def other_isbn(isbn, copy):
    """A valid ISBN of the same length whose nine core digits are moved by `copy`: an ISBN-10 and the
    ISBN-13 of one book stay one book's pair."""
    core = isbn[3:12] if len(isbn) == 13 else isbn[:9]
    core = f"{(int(core) + 7919 * copy) % 1_000_000_000:09d}"
    if len(isbn) == 13:
        digits = isbn[:3] + core
        check = (10 - sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(digits)) % 10) % 10
        return digits + str(check)
    check = (11 - sum(int(d) * (10 - i) for i, d in enumerate(core)) % 11) % 11
    return core + ("X" if check == 10 else str(check))


def eight_sources():
    return {
        "/ol/search.json": Recorded("openlibrary", "search_title_lotr_author_tolkien_2013_jayfajardo.json",
                                    ("docs",), "limit", 1000, ["key"], ["title"]),
        "/giphy/v1/gifs/search": Recorded("giphy", "search_limit50_2023-09_rexyonist.json",
                                          ("data",), "limit", 50, ["id"], ["title"]),
        "/aladin/ttb/api/ItemSearch.aspx": Recorded("aladin", "search_keyword_widaehan_iyagi_2021-11_inline_escaped_slashes.json",
                                                    ("item",), "MaxResults", 100, ["itemId", "link"], ["title"]),
        "/books/v1/volumes": Recorded("googlebooks", "search_q_harry_potter_2020-06_cmsanner.json",
                                      ("items",), "maxResults", 40, ["id"], ["volumeInfo", "title"]),
        "/v3/search/book": Recorded("kakao", "search_programmer_10docs_2020-05_sogoagain.json",
                                    ("documents",), "size", 50, ["url"], ["title"],
                                    unauthorized="error_401_access_denied_no_key_inline.json"),
        "/v1/search/book.json": Recorded("naver", "search_harry_empty_authors_2025-07_fegguri.json",
                                         ("items",), "display", 100, ["link"], ["title"],
                                         unauthorized="error_401_not_exist_client_id_inline.json"),
        "/works": Recorded("crossref", "search_query_widget_cursor_star_2026-06_habanero.json",
                           ("message", "items"), "rows", 1000, ["DOI", "URL"], ["title"]),
        "/books/": Recorded("gutendex", "books_page1_popular_2024-10_zeptobooks.json",
                            ("results",), None, 32, ["id"], ["title"]),
    }


RECORDED = eight_sources() if EIGHT else {}


def authorized(path, headers):
    if path == "/v3/search/book":
        return (headers.get("Authorization") or "").startswith("KakaoAK ") and len(headers.get("Authorization", "")) > 8
    if path == "/v1/search/book.json":
        return bool(headers.get("X-Naver-Client-Id")) and bool(headers.get("X-Naver-Client-Secret"))
    return True


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
        if EIGHT:
            recorded = RECORDED.get(path)
            if recorded is None:
                answer = NOT_FOUND
            elif not authorized(path, self.headers):
                answer = recorded.unauthorized or NOT_FOUND
            else:
                query = parse_qs(self.path.split("?", 1)[1] if "?" in self.path else "")
                answer = recorded.body(query, number)
        elif VARY and path in MAKERS:
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
