"""Seek as a calibre metadata source: identifies books by title, authors and ISBN through a
`seek serve`'s JSON API (merged across every source that instance has) and downloads covers through
its image route. Settings: the instance's URL and an optional token; SEEK_URL in the environment
overrides the URL.
"""

from __future__ import annotations

import datetime
import html

from calibre.ebooks.metadata.book.base import Metadata
from calibre.ebooks.metadata.sources.base import Option, Source


class Seek(Source):
    name = "Seek"
    description = "Book metadata and covers from a Seek instance (seek serve), merged across all its sources"
    author = "Seek"
    version = (1, 0, 0)
    minimum_calibre_version = (5, 0, 0)

    capabilities = frozenset(["identify", "cover"])
    touched_fields = frozenset(
        ["title", "authors", "identifier:isbn", "identifier:seek", "pubdate", "comments", "publisher", "tags"])
    has_html_comments = True
    # Seek's results without an ISBN (a web serial, a GIF's book) are still answers.
    prefer_results_with_isbn = False
    cached_cover_url_is_reliable = True

    options = (
        Option("url", "string", "http://127.0.0.1:8080", "Seek URL",
               "The address of a running seek serve, with its base path if it has one (http://host/books). "
               "SEEK_URL in the environment overrides it."),
        Option("token", "string", "", "Token",
               "Sent as Authorization: Bearer TOKEN, for an instance behind a proxy that asks for one. Empty: none."),
        Option("details", "number", 3, "Details of the first results",
               "How many of the best results also get their description, publisher and subjects (one request each)."),
    )
    config_help_message = "Seek searches every source the instance has and merges the answers."

    # The id of a Seek item is PROVIDER:ID (openlibrary:OL27448W); calibre keeps it as identifier `seek`.
    IDENTIFIER = "seek"

    def client(self, timeout=30):
        from calibre_plugins.seek.seek_client import SeekClient, instance_url
        return SeekClient(instance_url(self.prefs.get("url")), self.prefs.get("token"), timeout=timeout)

    def get_book_url(self, identifiers):
        item_id = identifiers.get(self.IDENTIFIER)
        if not item_id:
            return None
        try:
            return (self.IDENTIFIER, item_id, self.client().item_page(item_id))
        except Exception:  # a bad URL setting: no link rather than an error in a dialog
            return None

    def get_cached_cover_url(self, identifiers):
        item_id = identifiers.get(self.IDENTIFIER)
        if item_id is None:
            isbn = identifiers.get("isbn")
            if isbn:
                item_id = self.cached_isbn_to_identifier(isbn)
        return None if item_id is None else self.cached_identifier_to_cover_url(item_id)

    def identify(self, log, result_queue, abort, title=None, authors=None, identifiers={}, timeout=30):
        from calibre_plugins.seek.seek_client import SeekClientError, isbn13, search_text
        try:
            client = self.client(timeout)
        except SeekClientError as error:
            log.error(str(error))
            return str(error)
        item_id = identifiers.get(self.IDENTIFIER)
        isbn = identifiers.get("isbn")
        # An ISBN first; when the instance knows no book by it, the title and the authors.
        attempts = [text for text in (search_text(None, None, isbn), search_text(title, authors, None)) if text]
        books = []
        try:
            for text in dict.fromkeys(attempts):
                if abort.is_set():
                    return None
                log.info(f"Seek: searching {client.base_url} for {text!r}")
                books = [b for b in client.search(text) if b["kind"] == "book"]
                if books:
                    break
        except SeekClientError as error:
            log.error(str(error))
            return str(error)
        asked_isbn = isbn13(isbn)
        if asked_isbn and any(asked_isbn in b["isbn13"] for b in books):
            # The ISBN names the book: the rows that have it, not others calibre would merge with them.
            books = [b for b in books if asked_isbn in b["isbn13"]]
        if item_id:
            books.sort(key=lambda b: b["id"] != item_id)
        details = max(0, int(self.prefs.get("details") or 0))
        for relevance, book in enumerate(books):
            if abort.is_set():
                break
            detail = None
            if relevance < details:
                try:
                    detail = client.detail(book["id"])
                except SeekClientError as error:
                    log.warning(f"Seek: no details for {book['id']}: {error}")
            result_queue.put(self.metadata(book, detail, relevance, client, asked_isbn=asked_isbn))
        return None

    def metadata(self, book, detail, relevance, client, asked_isbn=None):
        """A calibre Metadata of one Seek result (and its detail document, when there is one); its ISBN
        the one asked for when the row has it (a merged row carries every edition's)."""
        mi = Metadata(book["title"], book["authors"] or [_("Unknown")])
        mi.set_identifier(self.IDENTIFIER, book["id"])
        if book["isbn13"]:
            mi.isbn = asked_isbn if asked_isbn in book["isbn13"] else book["isbn13"][0]
            self.cache_isbn_to_identifier(mi.isbn, book["id"])
        if book["year"]:
            mi.pubdate = datetime.datetime(book["year"], 1, 2, tzinfo=datetime.timezone.utc)
        if isinstance(detail, dict):
            description = detail.get("description")
            if isinstance(description, str) and description.strip():
                paragraphs = [p.strip() for p in description.split("\n\n") if p.strip()]
                mi.comments = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
            publishers = [p for p in detail.get("publishers") or [] if isinstance(p, str) and p.strip()]
            if publishers:
                mi.publisher = publishers[0]
            subjects = [s for s in detail.get("subjects") or [] if isinstance(s, str) and s.strip()]
            if subjects:
                mi.tags = subjects[:10]
        # The image route answers every result (a generated cover when the source has none is the server's choice).
        self.cache_identifier_to_cover_url(book["id"], client.cover_url(book["id"]))
        mi.has_cover = book["has_image"]
        mi.source_relevance = relevance
        return mi

    def download_cover(self, log, result_queue, abort, title=None, authors=None, identifiers={}, timeout=30,
                       get_best_cover=False):
        from calibre_plugins.seek.seek_client import SeekClientError
        item_id = identifiers.get(self.IDENTIFIER)
        if item_id is None and identifiers.get("isbn"):
            item_id = self.cached_isbn_to_identifier(identifiers["isbn"])
        if item_id is None:
            # No result of ours yet: identify first, then take the best result's cover.
            from queue import Empty, Queue
            found = Queue()
            self.identify(log, found, abort, title=title, authors=authors, identifiers=identifiers, timeout=timeout)
            results = []
            while True:
                try:
                    results.append(found.get_nowait())
                except Empty:
                    break
            results.sort(key=self.identify_results_keygen(title=title, authors=authors, identifiers=identifiers))
            for mi in results:
                item_id = mi.get_identifiers().get(self.IDENTIFIER)
                if item_id:
                    break
        if item_id is None or abort.is_set():
            log.info("Seek: no result to take a cover from")
            return
        try:
            data = self.client(timeout).cover(item_id)
        except SeekClientError as error:
            log.error(str(error))
            return
        if data is None:
            log.info(f"Seek: {item_id} has no cover")
            return
        result_queue.put((self, data))
