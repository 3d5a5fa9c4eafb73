"""Issue 49 as a new user checks it: a Calibre library made by Debian's `calibre` (`calibredb`), and
`seek search "the lord of the rings"` over Open Library (demo recordings) and the library shows one
row, owned, with its formats — in the CLI (table and JSON), the API (search, stream), the web UI
(server-rendered and in Chromium) and MCP; a book added with `calibredb add` while `seek serve` runs
is found by the next search; metadata.db is left byte-identical, with no -journal or -wal beside it.

Needs `calibredb` (apt-get install -y calibre; skips, saying so, without it), the built `seek`
($SEEK_BIN, else .build/release/seek, else .build/debug/seek), and for the browser part `chromium`
and `chromedriver` with the `selenium` package (that part skips without them).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
OPENAPI = REPO / "Sources" / "SeekRuntime" / "Documents" / "openapi.yaml"
LOTR = "The Lord of the Rings"
JPEG = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]) + bytes(64) + bytes([0xFF, 0xD9])


def seek_binary() -> str:
    explicit = os.environ.get("SEEK_BIN")
    if explicit:
        assert Path(explicit).is_file(), f"SEEK_BIN={explicit} is not a file"
        return explicit
    for candidate in (REPO / ".build" / "release" / "seek", REPO / ".build" / "debug" / "seek"):
        if candidate.is_file():
            return str(candidate)
    pytest.skip("no seek binary: run `swift build` or set SEEK_BIN")


def calibredb(arguments: list[str], library: Path, config: Path) -> str:
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "CALIBRE_CONFIG_DIRECTORY": str(config)}
    completed = subprocess.run(["calibredb", *arguments, "--library-path", str(library)], env=environment,
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, f"calibredb {arguments[0]}: {completed.stdout}{completed.stderr}"
    return completed.stdout


class Library:
    def __init__(self, root: Path) -> None:
        self.root = root / "Calibre Library"
        self.config = root / "calibre-config"
        self.files = root / "files"
        for folder in (self.root, self.config, self.files):
            folder.mkdir(parents=True, exist_ok=True)

    @property
    def database(self) -> Path:
        return self.root / "metadata.db"

    def add(self, *arguments: str) -> None:
        calibredb(["add", "--empty", *arguments], self.root, self.config)

    def journals(self) -> list[str]:
        return [suffix for suffix in ("-journal", "-wal", "-shm") if Path(str(self.database) + suffix).exists()]


@pytest.fixture
def library(tmp_path: Path) -> Library:
    if shutil.which("calibredb") is None:
        pytest.skip("calibredb is not installed (apt-get install -y calibre): the real-library checks did not run")
    made = Library(tmp_path)
    cover = made.files / "cover.jpg"
    cover.write_bytes(JPEG)
    made.add("--title", LOTR, "--authors", "J. R. R. Tolkien", "--isbn", "9780618640157", "--cover", str(cover))
    (made.files / "lotr.epub").write_bytes(b"PK not really an epub")
    (made.files / "lotr.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    calibredb(["add_format", "1", str(made.files / "lotr.epub")], made.root, made.config)
    calibredb(["add_format", "1", str(made.files / "lotr.pdf")], made.root, made.config)
    made.add("--title", "소년이 온다", "--authors", "한강", "--isbn", "9788936434120", "--languages", "kor")
    return made


def environment(tmp_path: Path, library: Library | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SEEK_")}
    env.update({"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "SEEK_CACHE_DIR": str(tmp_path / "cache"),
                "SEEK_DATA_DIR": str(tmp_path / "data"), "NO_COLOR": "1"})
    if library is not None:
        env["SEEK_CALIBRE_LIBRARY"] = str(library.root)
    return env


def seek(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([seek_binary(), *arguments], env=env, capture_output=True, text=True, timeout=120)


def validator(component: str) -> jsonschema.Draft202012Validator:
    openapi = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator({"$ref": f"#/components/schemas/{component}", "components": openapi["components"]})


def owned_rows(document: dict) -> list[dict]:
    return [item for item in document["items"] if item["owned"] is not None]


def the_lotr_row(document: dict) -> dict:
    rows = [item for item in document["items"] if item["title"].lower().startswith("the lord of the rings")]
    owned = [item for item in rows if item["owned"] is not None]
    assert len(owned) == 1, f"one owned Lord of the Rings row expected: {json.dumps(rows, ensure_ascii=False)[:2000]}"
    return owned[0]


def test_cli_one_owned_row_with_its_formats(library: Library, tmp_path: Path):
    before = library.database.read_bytes()
    env = environment(tmp_path, library)
    completed = seek(env, "search", "the lord of the rings", "--demo", "--format", "json")
    assert completed.returncode in (0, 3), completed.stderr
    document = json.loads(completed.stdout)
    validator("SearchDocument").validate(document)
    row = the_lotr_row(document)
    assert row["owned"] == {"id": "calibre:1", "formats": ["EPUB", "PDF"]}
    providers = {source["provider"] for source in row["sources"]}
    assert {"openlibrary", "calibre"} <= providers, row["sources"]
    assert all(item["owned"] is None or any(s["provider"] == "calibre" for s in item["sources"]) for item in document["items"])
    status = {outcome["id"]: outcome["status"] for outcome in document["providers"]}
    assert status["calibre"] == "ok"

    table = seek(env, "search", "the lord of the rings", "--demo")
    assert table.returncode in (0, 3), table.stderr
    assert "OWNED" in table.stdout and "✓ EPUB,PDF" in table.stdout, table.stdout

    korean = json.loads(seek(env, "search", "!lib 소년", "--format", "json").stdout)
    assert [item["title"] for item in korean["items"]] == ["소년이 온다"]
    assert korean["items"][0]["owned"] == {"id": "calibre:2", "formats": []}

    detail = json.loads(seek(env, "detail", "calibre:1", "--format", "json").stdout)
    validator("ItemDetail").validate(detail)
    assert detail["owned"] == {"id": "calibre:1", "formats": ["EPUB", "PDF"]}
    assert detail["attributes"]["formats"] == "EPUB, PDF"
    # Another source's record of a book the library holds (by ISBN) says so too, and a favourite keeps it.
    remote = json.loads(seek(env, "detail", row["id"], "--demo", "--format", "json").stdout)
    validator("ItemDetail").validate(remote)
    assert remote["owned"] == {"id": "calibre:1", "formats": ["EPUB", "PDF"]}, remote["id"]
    added = seek(env, "favorites", "add", "calibre:1")
    assert added.returncode == 0, added.stderr
    favorites = json.loads(seek(env, "favorites", "list", "--format", "json").stdout)
    validator("FavoritesDocument").validate(favorites)
    assert favorites["entries"][0]["owned"] == {"id": "calibre:1", "formats": ["EPUB", "PDF"]}
    image = tmp_path / "cover.jpg"
    got = seek(env, "image", "calibre:1", "-o", str(image))
    assert got.returncode == 0, got.stderr
    assert image.read_bytes()[:2] == b"\xff\xd8"

    assert library.database.read_bytes() == before
    assert library.journals() == []


def test_without_the_variable_the_source_is_skipped_and_nothing_is_owned(tmp_path: Path):
    env = environment(tmp_path, None)
    document = json.loads(seek(env, "search", "the lord of the rings", "--demo", "--format", "json").stdout)
    validator("SearchDocument").validate(document)
    assert owned_rows(document) == []
    calibre = next(outcome for outcome in document["providers"] if outcome["id"] == "calibre")
    assert calibre["status"] == "skipped"
    assert "SEEK_CALIBRE_LIBRARY" in calibre["error"]


def test_a_folder_that_is_not_a_library_says_so_and_gets_nothing_written(tmp_path: Path):
    folder = tmp_path / "not a library"
    folder.mkdir()
    env = {**environment(tmp_path, None), "SEEK_CALIBRE_LIBRARY": str(folder)}
    document = json.loads(seek(env, "search", "!lib hobbit", "--format", "json").stdout)
    calibre = document["providers"][0]
    assert calibre["status"] == "error"
    assert "is not a Calibre library: it has no metadata.db" in calibre["error"]
    assert list(folder.iterdir()) == []


class Server:
    def __init__(self, env: dict[str, str], *arguments: str) -> None:
        self.process = subprocess.Popen([seek_binary(), "serve", "--demo", "--port", "0", *arguments], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.base = ""
        found = threading.Event()

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                match = re.search(r"http://[\w.\[\]:]+:\d+", line)
                if match and not found.is_set():
                    self.base = match.group(0)
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        assert found.wait(60), "seek serve did not say where it listens"

    def get(self, path: str, **query: str) -> tuple[int, str]:
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode("utf-8")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def test_server_api_stream_web_and_a_book_added_while_it_runs(library: Library, tmp_path: Path):
    before = library.database.read_bytes()
    server = Server(environment(tmp_path, library))
    try:
        status, body = server.get("/api/v1/search", q="the lord of the rings")
        assert status == 200
        document = json.loads(body)
        validator("SearchDocument").validate(document)
        row = the_lotr_row(document)
        assert row["owned"]["formats"] == ["EPUB", "PDF"]

        status, body = server.get("/api/v1/search/stream", q="the lord of the rings")
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        summary = next(line for line in lines if line.get("type") == "summary")
        assert the_lotr_row(summary)["owned"]["id"] == "calibre:1"
        batch = next(line for line in lines if line.get("type") == "batch" and line["provider"] == "calibre")
        assert all(item["owned"] is not None for item in batch["items"])

        status, page = server.get("/search", q="the lord of the rings")
        assert status == 200
        owned = re.findall(r'<li class="result"[^>]*data-owned="true"[^>]*>', page)
        assert len(owned) == 1, owned
        assert "EPUB, PDF" in page

        status, detail = server.get("/items/calibre:1")
        assert 'data-owned="true"' in detail and "EPUB, PDF" in detail
        with urllib.request.urlopen(server.base + "/api/v1/items/calibre:1/image?size=medium", timeout=60) as response:
            assert response.status == 200 and response.read()[:2] == b"\xff\xd8"

        assert library.database.read_bytes() == before
        assert library.journals() == []

        # Calibre adds a book while Seek serves: the next search finds it, without a restart.
        library.add("--title", "The Hobbit", "--authors", "J. R. R. Tolkien", "--isbn", "9780618260300")
        added = library.database.read_bytes()
        status, body = server.get("/api/v1/search", q="hobbit", providers="calibre")
        assert [item["title"] for item in json.loads(body)["items"]] == ["The Hobbit"]
        assert library.database.read_bytes() == added
        assert library.journals() == []
    finally:
        server.stop()


def test_chromium_shows_the_badge_on_results_and_detail(library: Library, tmp_path: Path):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        pytest.skip("selenium is not installed: the browser check did not run")
    if shutil.which("chromium") is None or not Path("/usr/bin/chromedriver").exists():
        pytest.skip("chromium or chromedriver is not installed: the browser check did not run")
    server = Server(environment(tmp_path, library))
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(server.base + "/search?q=" + urllib.parse.quote("the lord of the rings"))
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-item-id]"))
        owned = driver.find_elements(By.CSS_SELECTOR, '[data-item-id][data-owned="true"]')
        assert len(owned) == 1
        badge = owned[0].find_element(By.CSS_SELECTOR, ".badge.owned")
        assert badge.is_displayed() and "EPUB, PDF" in badge.text
        owned[0].find_element(By.CSS_SELECTOR, ".title a").click()
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "article.detail"))
        assert driver.find_elements(By.CSS_SELECTOR, 'article.detail[data-owned="true"] .badge.owned')
    finally:
        driver.quit()
        server.stop()


def test_mcp_summary_says_owned(library: Library, tmp_path: Path):
    try:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError:
        pytest.skip("the mcp package is not installed: the MCP check did not run")

    async def main():
        parameters = StdioServerParameters(command=seek_binary(), args=["mcp", "--demo"], env=environment(tmp_path, library))
        with open(tmp_path / "mcp-stderr.txt", "a") as errlog:
            async with stdio_client(parameters, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool("search", {"query": "the lord of the rings"})

    result = asyncio.run(main())
    text = "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
    assert "owned EPUB,PDF" in text, text
    structured = getattr(result, "structuredContent", None) or getattr(result, "structured_content", None)
    assert the_lotr_row(structured)["owned"] == {"id": "calibre:1", "formats": ["EPUB", "PDF"]}


def test_public_instance_speaks_of_this_library(library: Library, tmp_path: Path):
    secret = {"SEEK_SECRET": "a-test-secret-that-is-long-enough-0123456789"}
    server = Server({**environment(tmp_path, library), **secret}, "--public")
    try:
        status, page = server.get("/search", q="the lord of the rings")
        assert status == 200
        assert re.findall(r'<li class="result"[^>]*data-owned="true"', page)
        assert "In this library: EPUB, PDF" in page and "In your library" not in page
        assert "This library" in page
    finally:
        server.stop()
    # Unset, a public instance has no library: nothing is owned.
    server = Server({**environment(tmp_path / "other", None), **secret}, "--public")
    try:
        status, body = server.get("/api/v1/search", q="the lord of the rings")
        assert owned_rows(json.loads(body)) == []
    finally:
        server.stop()
