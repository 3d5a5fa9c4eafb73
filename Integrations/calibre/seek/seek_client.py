"""Talks to a `seek serve` over its JSON API; no calibre import here, so it can be tested alone.

Every failure is a SeekClientError whose message names the instance (its URL, never the token) and
the cause: unreachable, an HTTP status with Seek's own error message, or an answer that is not the
JSON document the API describes.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8080"
ENVIRONMENT_URL = "SEEK_URL"
USER_AGENT = "seek-calibre-plugin/1.0"
#: The most results a search asks for; calibre keeps a few per source anyway.
SEARCH_LIMIT = 10
#: The most bytes of an answer read (a cover or a JSON document).
MAX_BYTES = 16 * 1024 * 1024


class SeekClientError(Exception):
    """A call to the Seek instance failed; the message says which instance and why."""


def instance_url(configured: str | None, environment=None) -> str:
    """The instance asked: SEEK_URL from the environment when set, else the configured URL, else the default.

    The answer has no trailing slash, so a base path (http://host/books) keeps working."""
    environment = os.environ if environment is None else environment
    url = (environment.get(ENVIRONMENT_URL) or "").strip() or (configured or "").strip() or DEFAULT_URL
    if not re.match(r"^https?://", url, re.IGNORECASE):
        raise SeekClientError(f"Seek's URL must start with http:// or https://, not {url[:60]!r}")
    return url.rstrip("/")


def isbn13(text: str | None) -> str | None:
    """The ISBN-13 of an ISBN-10 or ISBN-13 (hyphens and spaces ignored), or None when it is not one."""
    if not text:
        return None
    digits = re.sub(r"[\s-]", "", text).upper()
    if re.fullmatch(r"\d{13}", digits):
        total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(digits[:12]))
        return digits if (10 - total % 10) % 10 == int(digits[12]) else None
    if re.fullmatch(r"\d{9}[\dX]", digits):
        total = sum((10 - i) * (10 if d == "X" else int(d)) for i, d in enumerate(digits))
        if total % 11 != 0:
            return None
        body = "978" + digits[:9]
        check = (10 - sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body)) % 10) % 10
        return body + str(check)
    return None


def search_text(title: str | None, authors: list[str] | None, isbn: str | None) -> str | None:
    """What to search for: the ISBN when there is a valid one, else the title and the authors' names."""
    code = isbn13(isbn)
    if code:
        return code
    words = [title.strip()] if title and title.strip() else []
    words += [author.strip() for author in (authors or []) if author and author.strip()]
    return " ".join(words) or None


class SeekClient:
    """One Seek instance: its base URL (which may carry a base path) and an optional token, sent as
    `Authorization: Bearer TOKEN` for an instance behind a proxy that asks for one."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 30):
        self.base_url = base_url.rstrip("/")
        self.token = (token or "").strip() or None
        self.timeout = timeout

    def url(self, path: str, query: dict | None = None) -> str:
        text = self.base_url + path
        if query:
            text += "?" + urllib.parse.urlencode(query)
        return text

    def get(self, path: str, query: dict | None = None, accept: str = "application/json") -> tuple[bytes, str]:
        """The body and content type of GET path; a SeekClientError for anything but a 200."""
        request = urllib.request.Request(self.url(path, query), headers={"Accept": accept, "User-Agent": USER_AGENT})
        if self.token:
            request.add_header("Authorization", "Bearer " + self.token)
        where = f"Seek at {self.base_url}"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read(MAX_BYTES + 1)
                if len(body) > MAX_BYTES:
                    raise SeekClientError(f"{where}: the answer to {path} is larger than {MAX_BYTES} bytes")
                return body, response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            raise SeekClientError(f"{where}: {path} answered HTTP {error.code}{self._reason(error)}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise SeekClientError(f"{where} is not reachable: {reason}") from None

    @staticmethod
    def _reason(error: urllib.error.HTTPError) -> str:
        """Seek's own message of an error answer ({"error": {"code", "message"}}), when it has one."""
        try:
            document = json.loads(error.read(64 * 1024) or b"{}")
            message = document["error"]["message"]
            return f" ({str(message)[:200]})"
        except Exception:  # any other body: the status alone says it
            return ""

    def get_json(self, path: str, query: dict | None = None) -> dict:
        body, _ = self.get(path, query)
        try:
            document = json.loads(body)
        except ValueError as error:
            raise SeekClientError(f"Seek at {self.base_url}: {path} did not answer JSON ({error})") from None
        if not isinstance(document, dict):
            raise SeekClientError(f"Seek at {self.base_url}: {path} answered JSON that is not an object")
        return document

    def search(self, text: str, limit: int = SEARCH_LIMIT) -> list[dict]:
        """The merged results of one search, best first, each checked to have the fields used."""
        document = self.get_json("/api/v1/search", {"q": text, "limit": str(limit)})
        items = document.get("items")
        if not isinstance(items, list):
            raise SeekClientError(f"Seek at {self.base_url}: the search document has no items list")
        return [item for item in (book(raw) for raw in items) if item is not None]

    def detail(self, item_id: str) -> dict:
        """The detail document of one item (description, publishers, subjects, publishDate …)."""
        return self.get_json("/api/v1/items/" + urllib.parse.quote(item_id, safe=""))

    def cover_url(self, item_id: str) -> str:
        """The instance's image route for an item (the large size), which serves it through Seek's cache."""
        return self.url("/api/v1/items/" + urllib.parse.quote(item_id, safe="") + "/image", {"size": "large"})

    def item_page(self, item_id: str) -> str:
        return self.url("/items/" + urllib.parse.quote(item_id, safe=""))

    def cover(self, item_id: str) -> bytes | None:
        """The cover's bytes, or None when the item has none (404, or only the cover Seek draws); other failures raise."""
        try:
            body, kind = self.get(
                "/api/v1/items/" + urllib.parse.quote(item_id, safe="") + "/image", {"size": "large"}, accept="image/*")
        except SeekClientError as error:
            if "HTTP 404" in str(error):
                return None
            raise
        if kind.lower().startswith("image/svg"):
            # A cover Seek draws itself when the sources have none: calibre keeps raster covers only.
            return None
        if not kind.lower().startswith("image/"):
            raise SeekClientError(f"Seek at {self.base_url}: the cover of {item_id} is {kind or 'of no type'}, not an image")
        return body


def book(raw) -> dict | None:
    """A result item reduced to what calibre uses, or None when it is not a usable book record."""
    if not isinstance(raw, dict):
        return None
    item_id, title = raw.get("id"), raw.get("title")
    if not isinstance(item_id, str) or not item_id or not isinstance(title, str) or not title.strip():
        return None
    creators = [c.strip() for c in raw.get("creators") or [] if isinstance(c, str) and c.strip()]
    isbns = [i for i in raw.get("isbn13") or [] if isinstance(i, str) and isbn13(i)]
    year = raw.get("year")
    return {
        "id": item_id,
        "title": title.strip(),
        "subtitle": raw.get("subtitle") if isinstance(raw.get("subtitle"), str) else None,
        "authors": creators,
        "isbn13": isbns,
        "year": year if isinstance(year, int) and not isinstance(year, bool) and 0 < year < 10000 else None,
        "has_image": isinstance(raw.get("imageURL"), str) and bool(raw.get("imageURL")),
        "kind": raw.get("kind") if isinstance(raw.get("kind"), str) else "book",
    }
