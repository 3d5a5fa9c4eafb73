"""A small HTTP server on 127.0.0.1 that answers like Open Library (search, works, authors, covers),
GIPHY (search, trending, tags, one GIF) and Aladin (ItemSearch, ItemLookUp, ItemList), for driving
`seek serve`'s web UI from a real browser. Covers and GIFs are real JPEG and GIF bytes (Pillow).

Queries the fixtures know:
- "river": 45 Open Library books, 30 Aladin books with Korean titles, 30 GIFs (several pages);
- "quiet": the same book from Open Library and Aladin (one merged result), and two GIFs;
- anything with "script": a book whose title is hostile HTML;
- anything else: nothing from anyone.
`delays[provider] = seconds` holds that provider's search answers back (a hung provider);
`rate_limited[provider] = seconds` makes that provider answer 429 with that Retry-After.
"""

from __future__ import annotations

import io
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from PIL import Image, ImageDraw

GIPHY_KEY = "giphy-web-key-4f1c"
ALADIN_KEY = "aladin-web-key-7a2d"
HOSTILE_TITLE = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\"> \"Quotes\" & 'apostrophes'"

PALETTE = [(37, 99, 235), (22, 163, 74), (234, 88, 12), (147, 51, 234), (219, 39, 119), (8, 145, 178), (202, 138, 4)]


def jpeg(seed: int, width: int = 180, height: int = 270) -> bytes:
    colour = PALETTE[seed % len(PALETTE)]
    image = Image.new("RGB", (width, height), colour)
    draw = ImageDraw.Draw(image)
    draw.rectangle([12, 12, width - 12, height - 12], outline=(255, 255, 255), width=4)
    draw.text((24, height // 2 - 10), f"No. {seed}", fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=70)
    return out.getvalue()


def gif(seed: int, size: int = 200) -> bytes:
    frames = []
    for step in range(4):
        colour = PALETTE[(seed + step) % len(PALETTE)]
        frame = Image.new("RGB", (size, size), colour)
        draw = ImageDraw.Draw(frame)
        radius = 20 + step * 15
        draw.ellipse([size // 2 - radius, size // 2 - radius, size // 2 + radius, size // 2 + radius], fill=(255, 255, 255))
        frames.append(frame.convert("P"))
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=150, loop=0)
    return out.getvalue()


def body(value: dict) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


class FixtureServer:
    """Serves the routes below on 127.0.0.1 (a free port) in a background thread."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.delays: dict[str, float] = {}
        self.rate_limited: dict[str, int] = {}
        self.lock = threading.Lock()
        self.images: dict[int, bytes] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                with server.lock:
                    server.requests.append(self.path)
                status, content_type, payload = server.answer(self.path)
                retry_after = server.retry_after(self.path)
                if retry_after is not None:
                    status, content_type = 429, "application/json"
                    payload = json.dumps({"meta": {"status": 429, "msg": "API rate limit exceeded"}}).encode()
                self.send_response(status)
                if retry_after is not None:
                    self.send_header("Retry-After", str(retry_after))
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
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
        """The SEEK_* variables that point `seek` here."""
        return {
            "SEEK_OPENLIBRARY_URL": f"{self.base}/ol",
            "SEEK_OPENLIBRARY_COVERS_URL": f"{self.base}/covers",
            "SEEK_GIPHY_URL": f"{self.base}/giphy",
            "SEEK_GIPHY_API_KEY": GIPHY_KEY,
            "SEEK_ALADIN_URL": f"{self.base}/aladin/ttb/api",
            "SEEK_ALADIN_TTB_KEY": ALADIN_KEY,
            # Keyless sources answer here too (with nothing), never from the internet this machine lacks.
            "SEEK_CROSSREF_URL": f"{self.base}/crossref",
            "SEEK_GUTENDEX_URL": f"{self.base}/gutendex",
        }

    def retry_after(self, path: str) -> int | None:
        """The Retry-After to answer `path` with when its provider is rate limited, else None."""
        prefixes = {"/ol/": "openlibrary", "/giphy/": "giphy", "/aladin/": "aladin"}
        provider = next((name for prefix, name in prefixes.items() if path.startswith(prefix)), None)
        return self.rate_limited.get(provider) if provider else None

    def hold(self, provider: str) -> None:
        delay = self.delays.get(provider, 0)
        if delay:
            time.sleep(delay)

    # ---- the providers' shapes ----

    def ol_doc(self, number: int, title: str, year: int | None = 2001, isbns: list[str] | None = None) -> dict:
        return {
            "key": f"/works/OL{number}W",
            "title": title,
            "author_name": [f"Author {number}"],
            "author_key": [f"OL{number}A"],
            "first_publish_year": year,
            "isbn": isbns or [],
            "cover_i": 1000 + number,
        }

    def ol_search(self, text: str, offset: int, limit: int) -> dict:
        if "quiet" in text:
            docs = [self.ol_doc(1, "Quiet", 2012, ["0307352145", "9780307352149"])]
        elif "script" in text:
            docs = [self.ol_doc(666, HOSTILE_TITLE, 2020)]
        elif "river" in text:
            docs = [self.ol_doc(100 + n, f"River Book {n}", 1950 + n) for n in range(1, 46)]
        else:
            docs = []
        return {"numFound": len(docs), "start": offset, "docs": docs[offset:offset + limit]}

    def aladin_item(self, number: int, title: str, isbn13: str = "") -> dict:
        return {
            "title": title,
            "link": f"{self.base}/aladin/shop/{number}",
            "author": f"작가 {number} (지은이)",
            "pubDate": "2023-05-01",
            "description": f"{title}: 강과 바다에 관한 이야기.",
            "isbn": "",
            "isbn13": isbn13 or f"97911{number:08d}",
            "itemId": number,
            "cover": f"{self.base}/img/product/{number}/cover/k{number}.jpg",
            "publisher": "출판사",
        }

    def aladin_list(self, items: list[dict], start: int = 1, per_page: int = 20) -> dict:
        chunk = items[(start - 1) * per_page:start * per_page]
        return {"version": "20131101", "totalResults": len(items), "startIndex": start, "itemsPerPage": per_page,
                "query": "q", "item": chunk}

    def aladin_search(self, text: str) -> list[dict]:
        if "quiet" in text:
            return [self.aladin_item(11, "콰이어트", "9780307352149")]
        if "river" in text:
            return [self.aladin_item(2000 + n, f"강의 노래 {n}권 — 한국어 제목") for n in range(1, 31)]
        return []

    def giphy_gif(self, gif_id: str) -> dict:
        return {
            "type": "gif", "id": gif_id, "url": f"{self.base}/giphy/page/{gif_id}", "title": f"GIF {gif_id}", "rating": "g",
            "images": {
                "fixed_width": {"url": f"{self.base}/media/{gif_id}/200w.gif", "width": "200", "height": "200"},
                "downsized_medium": {"url": f"{self.base}/media/{gif_id}/medium.gif", "width": "200", "height": "200"},
                "original": {"url": f"{self.base}/media/{gif_id}/giphy.gif", "width": "200", "height": "200"},
            },
        }

    def giphy_list(self, ids: list[str], offset: int, limit: int) -> dict:
        chunk = ids[offset:offset + limit]
        return {"data": [self.giphy_gif(i) for i in chunk],
                "pagination": {"total_count": len(ids), "count": len(chunk), "offset": offset},
                "meta": {"status": 200, "msg": "OK", "response_id": "r"}}

    def image(self, seed: int, kind: str) -> bytes:
        key = seed * 2 + (1 if kind == "gif" else 0)
        if key not in self.images:
            self.images[key] = gif(seed) if kind == "gif" else jpeg(seed)
        return self.images[key]

    def answer(self, raw_path: str) -> tuple[int, str, bytes]:
        url = urlsplit(raw_path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        path = url.path
        json_type = "application/json; charset=utf-8"

        def number(text: str) -> int:
            digits = "".join(c for c in text if c.isdigit())
            return int(digits[:6]) if digits else 0

        # Images: covers (JPEG) and GIFs
        if path.startswith("/covers/") or path.startswith("/img/"):
            return 200, "image/jpeg", self.image(number(path.rsplit("/", 1)[-1]), "jpeg")
        if path.startswith("/media/"):
            return 200, "image/gif", self.image(number(path.split("/")[2]), "gif")

        # Crossref and Project Gutenberg: found nothing (these tests are about the three sources above).
        if path.startswith("/crossref/"):
            return 200, json_type, body({"status": "ok", "message-type": "work-list", "message-version": "1.0.0",
                                          "message": {"facets": {}, "total-results": 0, "items": [], "items-per-page": 0,
                                                      "query": {"start-index": 0, "search-terms": None}}})
        if path.startswith("/gutendex/"):
            return 200, json_type, body({"count": 0, "next": None, "previous": None, "results": []})

        # Open Library
        if path == "/ol/search.json":
            self.hold("openlibrary")
            text = (query.get("q") or "").lower()
            return 200, json_type, body(self.ol_search(text, int(query.get("offset", "0")), int(query.get("limit", "20"))))
        if path.startswith("/ol/works/OL") and path.endswith("W.json"):
            n = number(path)
            title = {1: "Quiet", 666: HOSTILE_TITLE}.get(n, f"River Book {n - 100}")
            return 200, json_type, body({
                "title": title, "key": f"/works/OL{n}W", "type": {"key": "/type/work"},
                "authors": [{"author": {"key": f"/authors/OL{n}A"}, "type": {"key": "/type/author_role"}}],
                "description": f"A book about rivers, number {n}. {HOSTILE_TITLE if n == 666 else ''}",
                "covers": [1000 + n], "subjects": ["Rivers", "Water"], "first_publish_date": "2001",
            })
        if path.startswith("/ol/authors/"):
            return 200, json_type, body({"name": f"Author {number(path)}", "key": path[3:-5], "type": {"key": "/type/author"}})
        if path.startswith("/ol/"):
            return 404, json_type, body({"error": "notfound", "key": path[3:]})

        # Aladin (the key must come along)
        if path.startswith("/aladin/ttb/api/"):
            if query.get("ttbkey") != ALADIN_KEY:
                return 200, json_type, body({"errorCode": 100, "errorMessage": "잘못된 TTBKey 입니다."})
            endpoint = path.rsplit("/", 1)[-1]
            per_page = int(query.get("MaxResults", "20"))
            start = int(query.get("start", "1"))
            if endpoint == "ItemSearch.aspx":
                self.hold("aladin")
                return 200, json_type, body(self.aladin_list(self.aladin_search(query.get("Query", "").lower()), start, per_page))
            if endpoint == "ItemLookUp.aspx":
                item_id = query.get("ItemId", "")
                if item_id == "9780307352149" or item_id == "11":
                    return 200, json_type, body(self.aladin_list([self.aladin_item(11, "콰이어트", "9780307352149")]))
                n = number(item_id)
                if item_id.startswith("97911"):
                    n = int(item_id[5:])
                return 200, json_type, body(self.aladin_list([self.aladin_item(n, f"강의 노래 {n - 2000}권 — 한국어 제목")]))
            if endpoint == "ItemList.aspx":
                items = [self.aladin_item(3000 + n, f"베스트셀러 {n}") for n in range(1, 9)]
                return 200, json_type, body(self.aladin_list(items, 1, per_page))

        # GIPHY (the key must come along)
        if path.startswith("/giphy/v1/gifs"):
            if query.get("api_key") != GIPHY_KEY:
                return 401, json_type, body({"message": "Unauthorized"})
            offset, limit = int(query.get("offset", "0")), int(query.get("limit", "25"))
            if path == "/giphy/v1/gifs/search":
                self.hold("giphy")
                text = query.get("q", "").lower()
                ids = [f"river{n}" for n in range(1, 31)] if "river" in text else (["quiet1", "quiet2"] if "quiet" in text else [])
                return 200, json_type, body(self.giphy_list(ids, offset, limit))
            if path == "/giphy/v1/gifs/trending":
                return 200, json_type, body(self.giphy_list([f"trend{n}" for n in range(1, 13)], offset, limit))
            if path == "/giphy/v1/gifs/search/tags":
                prefix = query.get("q", "")
                return 200, json_type, body({"data": [{"name": f"{prefix} tag"}, {"name": f"{prefix}s"}], "meta": {"status": 200, "msg": "OK"}})
            gif_id = path.rsplit("/", 1)[-1]
            return 200, json_type, body({"data": self.giphy_gif(gif_id), "meta": {"status": 200, "msg": "OK"}})

        return 404, json_type, body({"error": f"no fixture for {path}"})


if __name__ == "__main__":
    server = FixtureServer().start()
    print(server.base, flush=True)
    for key, value in server.environment().items():
        print(f"export {key}={value}")
    threading.Event().wait()
