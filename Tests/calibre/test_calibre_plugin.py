"""The calibre metadata source plugin "Seek" (Integrations/calibre/).

Its client module alone, against a loopback server these tests start (statuses, malformed and
truncated JSON, empty results, an unreachable instance, SEEK_URL over the setting); then the real
thing: Debian's calibre installs the zip that build.sh makes (`calibre-customize -a`), and
`fetch-ebook-metadata --allowed-plugin Seek` finds "The Lord of the Rings" from `seek serve --demo`.
Needs: calibre (apt-get install calibre) and a seek binary (SEEK_BIN, default .build/debug/seek,
with seek-hosts beside it); without them the end-to-end tests skip saying so.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "Integrations" / "calibre"
sys.path.insert(0, str(PLUGIN / "seek"))
import seek_client  # noqa: E402
from seek_client import SeekClient, SeekClientError  # noqa: E402


# MARK: the client alone


class Canned(http.server.BaseHTTPRequestHandler):
    """Answers each path with what the test put in `routes`: (status, content type, body, headers)."""

    routes: dict = {}
    seen: list = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        path = self.path.split("?", 1)[0]
        Canned.seen.append((self.path, dict(self.headers)))
        status, kind, body, headers = Canned.routes.get(path, (404, "application/json", b'{"error": {"code": "not_found", "message": "no such route"}}', {}))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


@pytest.fixture()
def canned():
    Canned.routes, Canned.seen = {}, []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Canned)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def item(**fields) -> dict:
    base = {"id": "openlibrary:OL27448W", "provider": "openlibrary", "kind": "book", "title": "The Lord of the Rings",
            "subtitle": None, "creators": ["J. R. R. Tolkien"], "year": 1954, "isbn13": ["9780618640157"],
            "imageURL": "https://covers.example/1.jpg", "url": None, "score": 1.0, "sources": []}
    base.update(fields)
    return base


def search_document(items) -> bytes:
    return json.dumps({"query": "q", "page": 1, "items": items, "providers": [], "next": None}).encode()


def test_search_reads_items_and_sends_the_token(canned):
    Canned.routes["/books/api/v1/search"] = (200, "application/json", search_document(
        [item(), item(id="x:2", title="  ", creators=[]), {"id": 3}, item(id="x:4", year=True, isbn13=["123", "9780261102385"])]), {})
    books = SeekClient(canned + "/books/", token="s3cret").search("The Lord of the Rings Tolkien")
    assert [b["id"] for b in books] == ["openlibrary:OL27448W", "x:4"]
    assert books[0]["authors"] == ["J. R. R. Tolkien"] and books[0]["isbn13"] == ["9780618640157"] and books[0]["year"] == 1954
    assert books[1]["year"] is None and books[1]["isbn13"] == ["9780261102385"]
    path, headers = Canned.seen[0]
    assert path.startswith("/books/api/v1/search?q=The+Lord+of+the+Rings+Tolkien")
    assert headers.get("Authorization") == "Bearer s3cret"


def test_empty_results_are_an_empty_list(canned):
    Canned.routes["/api/v1/search"] = (200, "application/json", search_document([]), {})
    assert SeekClient(canned).search("nothing at all") == []


@pytest.mark.parametrize("status, body, expected", [
    (400, b'{"error": {"code": "invalid_parameter", "message": "q is empty"}}', "HTTP 400 (q is empty)"),
    (429, b'{"error": {"code": "rate_limited", "message": "too many searches"}}', "HTTP 429 (too many searches)"),
    (500, b"<html>oops</html>", "HTTP 500"),
    (503, b"", "HTTP 503"),
])
def test_an_error_status_names_the_instance_and_the_cause(canned, status, body, expected):
    Canned.routes["/api/v1/search"] = (status, "application/json", body, {"Retry-After": "7"})
    with pytest.raises(SeekClientError) as caught:
        SeekClient(canned, token="s3cret").search("x")
    message = str(caught.value)
    assert f"Seek at {canned}" in message and expected in message
    assert "s3cret" not in message


@pytest.mark.parametrize("body, expected", [
    (b'{"items": [', "did not answer JSON"),
    (b"not json", "did not answer JSON"),
    (b"[1, 2]", "not an object"),
    (b'{"query": "x"}', "no items list"),
    (b'{"items": {"id": 1}}', "no items list"),
])
def test_malformed_or_truncated_json_is_an_error(canned, body, expected):
    Canned.routes["/api/v1/search"] = (200, "application/json", body, {})
    with pytest.raises(SeekClientError, match=expected):
        SeekClient(canned).search("x")


def test_an_unreachable_instance_is_an_error():
    with pytest.raises(SeekClientError, match="is not reachable"):
        SeekClient("http://127.0.0.1:9", timeout=5).search("x")


def test_cover_bytes_none_on_404_and_refuses_what_is_not_an_image(canned):
    client = SeekClient(canned)
    Canned.routes["/api/v1/items/a%3A1/image"] = (200, "image/png", b"\x89PNG....", {})
    assert client.cover("a:1") == b"\x89PNG...."
    assert Canned.seen[-1][0] == "/api/v1/items/a%3A1/image?size=large"
    assert client.cover("a:2") is None
    Canned.routes["/api/v1/items/a%3A5/image"] = (200, "image/svg+xml", b"<svg/>", {})
    assert client.cover("a:5") is None
    Canned.routes["/api/v1/items/a%3A3/image"] = (200, "text/html", b"<html>", {})
    with pytest.raises(SeekClientError, match="not an image"):
        client.cover("a:3")
    Canned.routes["/api/v1/items/a%3A4/image"] = (502, "application/json", b'{"error": {"code": "upstream", "message": "provider down"}}', {})
    with pytest.raises(SeekClientError, match="HTTP 502"):
        client.cover("a:4")


def test_seek_url_overrides_the_setting_and_bad_urls_are_refused():
    assert seek_client.instance_url("http://configured:1/", {"SEEK_URL": "http://env:2/books/"}) == "http://env:2/books"
    assert seek_client.instance_url("http://configured:1/", {}) == "http://configured:1"
    assert seek_client.instance_url("", {"SEEK_URL": "  "}) == seek_client.DEFAULT_URL
    with pytest.raises(SeekClientError, match="must start with http"):
        seek_client.instance_url("ftp://x", {})


def test_search_text_prefers_a_valid_isbn():
    assert seek_client.isbn13("0261102389") == "9780261102385"
    assert seek_client.isbn13("978-0-261-10238-5") == "9780261102385"
    assert seek_client.isbn13("9780261102386") is None
    assert seek_client.search_text("The Hobbit", ["J. R. R. Tolkien"], "0261102389") == "9780261102385"
    assert seek_client.search_text("The Hobbit", ["J. R. R. Tolkien"], "bogus") == "The Hobbit J. R. R. Tolkien"
    assert seek_client.search_text(None, [], None) is None


# MARK: calibre itself against seek serve --demo


def seek_binary() -> Path:
    path = Path(os.environ.get("SEEK_BIN") or ROOT / ".build" / "debug" / "seek")
    return path if path.is_absolute() else ROOT / path


needs_calibre = pytest.mark.skipif(
    not (shutil.which("calibre-customize") and shutil.which("fetch-ebook-metadata")),
    reason="calibre is not installed (apt-get install calibre): the plugin's end-to-end tests need calibre-customize and fetch-ebook-metadata")


@pytest.fixture(scope="module")
def demo():
    """`seek serve --demo` on a free loopback port, with folders of its own."""
    binary = seek_binary()
    if not binary.exists():
        pytest.fail(f"no seek binary at {binary} (swift build --product seek && swift build --product seek-hosts, or set SEEK_BIN)")
    home = Path(tempfile.mkdtemp(prefix="seek-calibre-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEEK_")}
    env.update(HOME=str(home), SEEK_CACHE_DIR=str(home / "cache"), SEEK_DATA_DIR=str(home / "data"), NO_COLOR="1")
    process = subprocess.Popen([str(binary), "serve", "--port", "0", "--demo"], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found, log = threading.Event(), []
    base = {}

    def read():
        for line in process.stderr:
            log.append(line)
            match = re.search(r"http://127\.0\.0\.1:\d+", line)
            if match and not found.is_set():
                base["url"] = match.group(0)
                found.set()

    threading.Thread(target=read, daemon=True).start()
    if not found.wait(60):
        process.kill()
        pytest.fail("seek serve --demo did not say where it listens:\n" + "".join(log))
    yield base["url"]
    process.terminate()
    process.wait(15)
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture()
def calibre(tmp_path):
    """A calibre configuration folder of its own with the plugin installed from the zip build.sh makes."""
    archive = tmp_path / "Seek.zip"
    subprocess.run(["bash", str(PLUGIN / "build.sh"), str(archive)], check=True, capture_output=True, text=True)
    config = tmp_path / "calibre-config"
    config.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "SEEK_URL"}
    env.update(CALIBRE_CONFIG_DIRECTORY=str(config), QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path))
    installed = subprocess.run(["calibre-customize", "-a", str(archive)], env=env, capture_output=True, text=True, timeout=120)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "Plugin added: Seek" in installed.stdout, installed.stdout + installed.stderr
    listed = subprocess.run(["calibre-customize", "-l"], env=env, capture_output=True, text=True, timeout=120)
    assert re.search(r"Metadata source\s+Seek\s", listed.stdout), listed.stdout
    return config, env


def fetch(env, *arguments, seek_url=None, timeout=180):
    env = dict(env)
    if seek_url is not None:
        env["SEEK_URL"] = seek_url
    return subprocess.run(["fetch-ebook-metadata", "--allowed-plugin", "Seek", "--timeout", "30", *arguments],
                          env=env, capture_output=True, text=True, timeout=timeout)


def field(output: str, name: str) -> str | None:
    match = re.search(rf"^{re.escape(name)}\s*:\s*(.+)$", output, re.MULTILINE)
    return match.group(1).strip() if match else None


def demo_book(url: str) -> dict:
    """What the demo answers for the search the plugin makes: the best book and whether its image route has bytes."""
    client = SeekClient(url)
    books = [b for b in client.search("The Lord of the Rings Tolkien") if b["kind"] == "book"]
    assert books, "the demo has no book for 'The Lord of the Rings Tolkien'"
    return books[0]


@needs_calibre
def test_fetch_ebook_metadata_finds_the_lord_of_the_rings_with_its_cover(demo, calibre, tmp_path):
    _, env = calibre
    cover = tmp_path / "cover.jpg"
    done = fetch(env, "-t", "The Lord of the Rings", "-a", "Tolkien", "-c", str(cover), seek_url=demo)
    output = done.stdout
    assert done.returncode == 0, output + done.stderr
    assert "The Lord of the Rings" in (field(output, "Title") or ""), output
    assert "Tolkien" in (field(output, "Author(s)") or ""), output
    identifiers = field(output, "Identifiers") or ""
    assert "seek:" in identifiers, output
    assert re.search(r"isbn:97[89]\d{10}", identifiers), output
    best = demo_book(demo)
    has_cover = SeekClient(demo).cover(best["id"]) is not None
    if has_cover:
        assert cover.exists() and cover.stat().st_size > 100, output + done.stderr
        assert field(output, "Cover") == str(cover)
    else:
        assert "No cover found" in done.stderr


@needs_calibre
def test_an_isbn_is_asked_first_and_kept_when_the_row_has_it(demo, calibre):
    """The demo answers no ISBN search, so the plugin falls back to the title and authors; of the row's
    editions' ISBNs, calibre gets the one it asked with."""
    _, env = calibre
    isbns = demo_book(demo)["isbn13"]
    assert len(isbns) > 1
    done = fetch(env, "-t", "The Lord of the Rings", "-a", "Tolkien", "-i", isbns[1], seek_url=demo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The Lord of the Rings" in (field(done.stdout, "Title") or ""), done.stdout
    assert f"isbn:{isbns[1]}" in (field(done.stdout, "Identifiers") or ""), done.stdout


@needs_calibre
def test_the_url_setting_is_used_and_seek_url_overrides_it(demo, calibre):
    config, env = calibre
    settings = config / "metadata_sources"
    settings.mkdir(exist_ok=True)
    (settings / "Seek.json").write_text(json.dumps({"url": demo, "token": "", "details": 1}))
    done = fetch(env, "-t", "The Lord of the Rings", "-a", "Tolkien")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Tolkien" in (field(done.stdout, "Author(s)") or ""), done.stdout
    (settings / "Seek.json").write_text(json.dumps({"url": "http://127.0.0.1:9", "token": ""}))
    assert fetch(env, "-t", "The Lord of the Rings", "-a", "Tolkien").returncode != 0
    done = fetch(env, "-t", "The Lord of the Rings", "-a", "Tolkien", seek_url=demo)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_calibre
def test_an_unreachable_instance_finds_nothing_and_says_why(calibre):
    _, env = calibre
    done = fetch(env, "-t", "The Lord of the Rings", "-a", "Tolkien", "-v", seek_url="http://127.0.0.1:9")
    assert done.returncode == 1
    assert "No results found" in done.stderr
    assert "Seek at http://127.0.0.1:9 is not reachable" in done.stderr
