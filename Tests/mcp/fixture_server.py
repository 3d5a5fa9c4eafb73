"""A tiny HTTP server on 127.0.0.1 that answers like Open Library, Aladin and GIPHY, for driving
`seek mcp` from an independent client. Bodies are small ones of our own in the real APIs' shapes
(the same as the Swift tests' samples), plus real recorded responses from ../shared/fixtures when
that folder is there.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

GIPHY_KEY = "giphy-pytest-key-5b21"
ALADIN_KEY = "aladin-pytest-key-90ce"



def seek_binary() -> str:
    """The `seek` under test: SEEK_BIN, else this checkout's release or debug build; skips without one."""
    import pytest

    explicit = os.environ.get("SEEK_BIN")
    if explicit:
        assert Path(explicit).is_file(), f"SEEK_BIN={explicit} is not a file"
        return explicit
    repo = Path(__file__).resolve().parents[2]
    for candidate in (repo / ".build" / "release" / "seek", repo / ".build" / "debug" / "seek"):
        if candidate.is_file():
            return str(candidate)
    pytest.skip("no seek binary: run `swift build` or set SEEK_BIN")

def ol_doc(number: int, title: str, isbns: list[str], year: int | None, author: str) -> dict:
    return {
        "key": f"/works/OL{number}W",
        "title": title,
        "author_name": [author],
        "first_publish_year": year,
        "isbn": isbns,
    }


OL_QUIET = {
    "numFound": 2,
    "start": 0,
    "docs": [
        ol_doc(1, "Quiet", ["0307352145", "9780307352149"], 2012, "Susan Cain"),
        ol_doc(2, "Something Else", ["9780306406157"], None, "Author 2"),
    ],
}
OL_EMPTY = {"numFound": 0, "start": 0, "num_found": 0, "docs": []}
OL_WORK = {
    "title": "Fantastic Mr Fox",
    "key": "/works/OL45804W",
    "authors": [{"author": {"key": "/authors/OL34184A"}, "type": {"key": "/type/author_role"}}],
    "type": {"key": "/type/work"},
    "description": "The main character of Fantastic Mr. Fox is a fox.",
    "covers": [6498519],
    "subjects": ["Foxes", "Farmers"],
    "first_publish_date": "1970",
}
OL_AUTHOR = {"name": "Roald Dahl", "key": "/authors/OL34184A", "type": {"key": "/type/author"}}


def aladin_item(isbn13: str, title: str, item_id: int, pub_date: str) -> dict:
    return {
        "title": title,
        "link": f"http://www.aladin.co.kr/shop/wproduct.aspx?ItemId={item_id}",
        "author": "저자 (지은이)",
        "pubDate": pub_date,
        "isbn": "",
        "isbn13": isbn13,
        "itemId": item_id,
        "cover": f"https://image.aladin.co.kr/product/{item_id}/cover.jpg",
        "publisher": "출판사",
    }


def aladin_list(items: list[dict]) -> dict:
    return {
        "version": "20131101",
        "totalResults": len(items),
        "startIndex": 1,
        "itemsPerPage": len(items),
        "query": "q",
        "item": items,
    }


ALADIN_QUIET = aladin_list([aladin_item("9780307352149", "콰이어트", 11, "2013-01-05")])
ALADIN_NOT_FOUND = {"errorCode": 8, "errorMessage": "존재하지 않는 상품입니다."}


def giphy_list(ids: list[str]) -> dict:
    gifs = [
        {
            "type": "gif",
            "id": gif,
            "url": f"https://giphy.com/gifs/{gif}",
            "title": f"GIF {gif}",
            "rating": "g",
            "images": {
                "fixed_width": {"url": f"https://media.giphy.com/media/{gif}/200w.gif", "width": "200", "height": "150"},
                "original": {"url": f"https://media.giphy.com/media/{gif}/giphy.gif", "width": "480", "height": "360"},
            },
        }
        for gif in ids
    ]
    return {
        "data": gifs,
        "pagination": {"total_count": len(ids), "count": len(ids), "offset": 0},
        "meta": {"status": 200, "msg": "OK", "response_id": "r"},
    }


class FixtureServer:
    """Serves the routes below on 127.0.0.1 (a free port) in a background thread."""

    def __init__(self, shared_fixtures: Path | None):
        self.shared = shared_fixtures if shared_fixtures and shared_fixtures.is_dir() else None
        self.requests: list[str] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                with server.lock:
                    server.requests.append(self.path)
                status, body = server.answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FixtureServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def environment(self) -> dict[str, str]:
        """The SEEK_*_URL variables (and keys) that point `seek` here."""
        return {
            "SEEK_OPENLIBRARY_URL": f"{self.base}/ol",
            "SEEK_OPENLIBRARY_COVERS_URL": f"{self.base}/covers",
            "SEEK_GIPHY_URL": f"{self.base}/giphy",
            "SEEK_GIPHY_API_KEY": GIPHY_KEY,
            "SEEK_ALADIN_URL": f"{self.base}/aladin/ttb/api",
            "SEEK_ALADIN_TTB_KEY": ALADIN_KEY,
            # Keyless sources answer here too (with nothing), never from the internet.
            "SEEK_CROSSREF_URL": f"{self.base}/crossref",
            "SEEK_GUTENDEX_URL": f"{self.base}/gutendex",
        }

    def recorded(self, provider: str, name: str) -> bytes | None:
        if self.shared is None:
            return None
        path = self.shared / provider / name
        return path.read_bytes() if path.is_file() else None

    def answer(self, raw_path: str) -> tuple[int, bytes]:
        url = urlsplit(raw_path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        path = url.path

        def body(value: dict) -> bytes:
            return json.dumps(value, ensure_ascii=False).encode()

        # Crossref and Project Gutenberg: found nothing (these tests are about the three sources below).
        if path == "/crossref/works":
            return 200, body({"status": "ok", "message-type": "work-list", "message": {"total-results": 0, "items": []}})
        if path == "/gutendex/books/":
            return 200, body({"count": 0, "next": None, "previous": None, "results": []})

        # Open Library
        if path == "/ol/search.json":
            text = (query.get("q") or query.get("title") or "").lower()
            if "quiet" in text:
                return 200, body(OL_QUIET)
            if "lord of the rings" in text:
                recorded = self.recorded("openlibrary", "search_q_the_lord_of_the_rings_default_fields_2025_inline.json")
                if recorded is not None:
                    return 200, recorded
            return 200, body(OL_EMPTY)
        if path == "/ol/works/OL45804W.json":
            return 200, body(OL_WORK)
        if path == "/ol/authors/OL34184A.json":
            return 200, body(OL_AUTHOR)
        if path.startswith("/ol/"):
            return 404, body({"error": "notfound", "key": path[3:]})

        # Aladin (the key must come along)
        if path.startswith("/aladin/ttb/api/"):
            if query.get("ttbkey") != ALADIN_KEY:
                return 200, body({"errorCode": 100, "errorMessage": "잘못된 TTBKey 입니다."})
            endpoint = path.rsplit("/", 1)[-1]
            if endpoint == "ItemSearch.aspx":
                return 200, body(ALADIN_QUIET if "quiet" in query.get("Query", "").lower() else aladin_list([]))
            if endpoint == "ItemLookUp.aspx":
                recorded = self.recorded("aladin", f"lookup_isbn13_{query.get('ItemId', '')}_ove_2024-08_devcorgi.json")
                return 200, recorded if recorded is not None else body(ALADIN_NOT_FOUND)
            if endpoint == "ItemList.aspx":
                return 200, body(aladin_list([]))

        # GIPHY (the key must come along)
        if path.startswith("/giphy/v1/gifs/"):
            if query.get("api_key") != GIPHY_KEY:
                return 401, body({"message": "Unauthorized"})
            if path == "/giphy/v1/gifs/search":
                return 200, body(giphy_list(["cat1", "cat2"] if "cat" in query.get("q", "").lower() else []))
            if path == "/giphy/v1/gifs/trending":
                return 200, body(giphy_list(["t1", "t2"]))
            if path == "/giphy/v1/gifs/search/tags":
                return 200, body({"data": [{"name": "cats"}, {"name": "cat memes"}], "meta": {"status": 200, "msg": "OK"}})

        return 404, body({"error": f"no fixture for {path}"})
